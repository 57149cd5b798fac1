/**
 * ajv-compiled validators for every params and result schema, compiled on first use so
 * server start-up pays only for the methods it actually sees.
 */
import { Ajv, type ValidateFunction } from "ajv";
import type { TSchema } from "typebox";
import type { ValidationIssue } from "./errors.ts";
import {
  CLIENT_NOTIFICATIONS,
  CLIENT_REQUESTS,
  SERVER_NOTIFICATIONS,
  SERVER_REQUESTS,
} from "./method-table.ts";

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** Validates `value` against any protocol schema. */
export function validateSchema<T>(schema: TSchema, value: unknown): ValidationResult<T> {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = ajv.compile(schema as object);
    compiled.set(schema, check);
  }
  if (check(value)) return { ok: true, value: value as T };
  const issues = (check.errors ?? []).map((error) => ({
    path: error.instancePath,
    message:
      error.keyword === "additionalProperties"
        ? `unexpected property '${String((error.params as { additionalProperty?: string }).additionalProperty)}'`
        : error.keyword === "required"
          ? `missing required property '${String((error.params as { missingProperty?: string }).missingProperty)}'`
          : (error.message ?? "is invalid"),
  }));
  return { ok: false, issues: dedupe(issues) };
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Params of a client request; absent params validate as `{}`. Unknown methods yield null. */
export function validateRequestParams(method: string, params: unknown): ValidationResult<unknown> | null {
  if (!Object.hasOwn(CLIENT_REQUESTS, method)) return null;
  const entry = CLIENT_REQUESTS[method as keyof typeof CLIENT_REQUESTS];
  return validateSchema(entry.params, params === undefined ? {} : params);
}

/** Result of a client request, as the server sends it. */
export function validateRequestResult(method: string, result: unknown): ValidationResult<unknown> | null {
  if (!Object.hasOwn(CLIENT_REQUESTS, method)) return null;
  const entry = CLIENT_REQUESTS[method as keyof typeof CLIENT_REQUESTS];
  return validateSchema(entry.result, result);
}

/** Params of a server notification. */
export function validateNotificationParams(
  method: string,
  params: unknown,
): ValidationResult<unknown> | null {
  if (Object.hasOwn(SERVER_NOTIFICATIONS, method)) {
    return validateSchema(
      SERVER_NOTIFICATIONS[method as keyof typeof SERVER_NOTIFICATIONS],
      params === undefined ? {} : params,
    );
  }
  if (Object.hasOwn(CLIENT_NOTIFICATIONS, method)) {
    return validateSchema(
      CLIENT_NOTIFICATIONS[method as keyof typeof CLIENT_NOTIFICATIONS],
      params === undefined ? {} : params,
    );
  }
  return null;
}

/** Params or result of a server-to-client request. */
export function validateServerRequest(
  method: string,
  part: "params" | "result",
  value: unknown,
): ValidationResult<unknown> | null {
  if (!Object.hasOwn(SERVER_REQUESTS, method)) return null;
  const entry = SERVER_REQUESTS[method as keyof typeof SERVER_REQUESTS];
  return validateSchema(entry[part], value);
}
