/**
 * Wire errors: `{code, message, data?}` where `code` is the exact string name the spec
 * uses. The schema of each code's `data` lives in `error-data.ts`.
 */

/** Every error code the server sends. */
export const ERROR_CODES = [
  "parseError",
  "invalidRequest",
  "notInitialized",
  "alreadyInitialized",
  "methodNotFound",
  "invalidParams",
  "threadNotFound",
  "threadNotArchived",
  "turnInProgress",
  "turnMismatch",
  "threadLockedElsewhere",
  "archiveConflict",
  "worktreeConflict",
  "configConflict",
  "invalidCursor",
  "payloadNotFound",
  "toolMissing",
  "nothingToUndo",
  "lineTooLong",
  "overloaded",
  "shuttingDown",
  "internal",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The error member of a response. */
export interface WireError {
  code: string;
  message: string;
  data?: unknown;
}

/** One failing location reported by the params validator. */
export interface ValidationIssue {
  /** JSON Pointer into params, "" for the params object itself. */
  path: string;
  message: string;
}

/** A wire error as an exception; `code`, `message` and `data` survive a round trip exactly. */
export class AppServerError extends Error {
  override readonly name = "AppServerError";
  readonly code: string;
  readonly data: unknown;

  constructor(code: ErrorCode | (string & {}), message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }

  /** The wire form; `data` is omitted when undefined. */
  toWire(): WireError {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static fromWire(error: WireError): AppServerError {
    return new AppServerError(error.code, error.message, error.data);
  }
}

/** True for an `AppServerError` with the given code. */
export function isAppServerError(error: unknown, code?: ErrorCode): error is AppServerError {
  return error instanceof AppServerError && (code === undefined || error.code === code);
}
