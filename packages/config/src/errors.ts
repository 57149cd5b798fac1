/**
 * Local errors of the config package. Each carries the wire code the spec names for
 * the failure, so the app server maps it to an `AppServerError` one to one without
 * parsing messages.
 */

/** The wire codes config failures map to. */
export type ConfigErrorCode = "invalidParams" | "configConflict" | "internal";

/** Machine-readable reasons carried in `data.reason` of `invalidParams`. */
export type InvalidParamsReason =
  | "untrusted"
  | "missingCwd"
  | "malformedKey"
  | "prototypePollution"
  | "invalidValue"
  | "invalidScope"
  | "notADirectory";

/** A config failure carrying the spec's wire `code` and its `data`. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly code: ConfigErrorCode;
  readonly data: unknown;

  constructor(code: ConfigErrorCode, message: string, data?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.data = data;
  }
}

/** `invalidParams` with a machine-readable `data.reason`. */
export function invalidParams(reason: InvalidParamsReason, message: string): ConfigError {
  return new ConfigError("invalidParams", message, { reason });
}

/** `configConflict` carrying the file's current version. */
export function configConflict(version: string): ConfigError {
  return new ConfigError(
    "configConflict",
    "The settings file changed since it was read; reread it and resolve the conflict",
    { version },
  );
}

/** `internal` wrapping a storage failure, keeping the cause for logs. */
export function storageFailure(message: string, cause?: unknown): ConfigError {
  const detail = cause instanceof Error ? `: ${cause.message}` : "";
  return new ConfigError("internal", `${message}${detail}`, undefined, { cause });
}

/**
 * True for a Node system error (a failed `stat`, `open`, `spawn`...) with one of the given
 * codes. System errors have no class of their own, so this is the one place that reads
 * `code` off an arbitrary thrown value.
 */
export function isErrnoCode(
  error: unknown,
  ...codes: string[]
): error is NodeJS.ErrnoException & { code: string } {
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    codes.includes(String((error as { code: unknown }).code))
  );
}
