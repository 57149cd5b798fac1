/**
 * Run-time validation with validators compiled ahead of time (`generated/validators.ts`),
 * so the server's start-up loads neither TypeBox nor the ajv compiler. Failures are
 * `{path, message}` lists for `invalidParams.data.errors`.
 */
import type { ValidationIssue } from "./errors.ts";
import { VALIDATORS } from "./generated/validators.ts";
import {
  NO_NUL_PATTERN,
  NO_NUL_PATTERN_MESSAGE,
  PATH_PATTERN,
  PATH_PATTERN_MESSAGE,
} from "./path-pattern.ts";

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/** The shape of an ajv error that issues are built from. */
export interface AjvErrorLike {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

type CompiledValidator = ((value: unknown) => boolean) & { errors?: AjvErrorLike[] | null };

const table = VALIDATORS as unknown as Record<string, CompiledValidator>;

/** Turns ajv errors into `{path, message}` issues, without duplicates. */
export function toValidationIssues(errors: readonly AjvErrorLike[]): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const message =
      error.keyword === "additionalProperties"
        ? `unexpected property '${String(error.params.additionalProperty)}'`
        : error.keyword === "required"
          ? `missing required property '${String(error.params.missingProperty)}'`
          : error.keyword === "pattern" && error.params.pattern === PATH_PATTERN
            ? PATH_PATTERN_MESSAGE
            : error.keyword === "pattern" && error.params.pattern === NO_NUL_PATTERN
              ? NO_NUL_PATTERN_MESSAGE
              : (error.message ?? "is invalid");
    const key = `${error.instancePath}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path: error.instancePath, message });
  }
  return issues;
}

function run(key: string, value: unknown): ValidationResult<unknown> | null {
  const check = table[key];
  if (check === undefined) return null;
  if (check(value)) return { ok: true, value };
  return { ok: false, issues: toValidationIssues(check.errors ?? []) };
}

/** Params of a client request; absent params validate as `{}`. Unknown methods yield null. */
export function validateRequestParams(method: string, params: unknown): ValidationResult<unknown> | null {
  return run(`request ${method} params`, params === undefined ? {} : params);
}

/** Params of a client notification (`initialized`). Unknown methods yield null. */
export function validateClientNotificationParams(
  method: string,
  params: unknown,
): ValidationResult<unknown> | null {
  return run(`notification ${method} params`, params === undefined ? {} : params);
}

/** Params or result of a server-to-client request. Unknown methods yield null. */
export function validateServerRequest(
  method: string,
  part: "params" | "result",
  value: unknown,
): ValidationResult<unknown> | null {
  return run(`serverRequest ${method} ${part}`, value);
}
