/**
 * Validation against any protocol schema, compiled at run time on first use. For tests and
 * clients that check what the server sends; the server itself uses `validate.ts`.
 */
import { Ajv, type ValidateFunction } from "ajv";
import type { TSchema } from "typebox";
import { CLIENT_NOTIFICATIONS, CLIENT_REQUESTS, SERVER_NOTIFICATIONS } from "./method-table.ts";
import { toValidationIssues, type ValidationResult } from "./validate.ts";
import { AJV_OPTIONS } from "./validator-codegen.ts";

const ajv = new Ajv(AJV_OPTIONS);
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** Validates `value` against any protocol schema. */
export function validateSchema<T>(schema: TSchema, value: unknown): ValidationResult<T> {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = ajv.compile(schema as object);
    compiled.set(schema, check);
  }
  if (check(value)) return { ok: true, value: value as T };
  return { ok: false, issues: toValidationIssues(check.errors ?? []) };
}

/** Result of a client request, as the server sends it. Unknown methods yield null. */
export function validateRequestResult(method: string, result: unknown): ValidationResult<unknown> | null {
  if (!Object.hasOwn(CLIENT_REQUESTS, method)) return null;
  return validateSchema(CLIENT_REQUESTS[method as keyof typeof CLIENT_REQUESTS].result, result);
}

/** Params of a notification in either direction. Unknown methods yield null. */
export function validateNotificationParams(
  method: string,
  params: unknown,
): ValidationResult<unknown> | null {
  const value = params === undefined ? {} : params;
  if (Object.hasOwn(SERVER_NOTIFICATIONS, method)) {
    return validateSchema(SERVER_NOTIFICATIONS[method as keyof typeof SERVER_NOTIFICATIONS], value);
  }
  if (Object.hasOwn(CLIENT_NOTIFICATIONS, method)) {
    return validateSchema(CLIENT_NOTIFICATIONS[method as keyof typeof CLIENT_NOTIFICATIONS], value);
  }
  return null;
}
