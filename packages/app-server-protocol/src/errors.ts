/**
 * Wire errors: `{code, message, data?}` where `code` is the exact string name the spec
 * uses. Each code's `data` has a schema so clients can rely on its shape.
 */
import Type, { type Static } from "typebox";

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
  "configConflict",
  "invalidCursor",
  "payloadNotFound",
  "toolMissing",
  "lineTooLong",
  "shuttingDown",
  "internal",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorCodeSchema = Type.Union(ERROR_CODES.map((code) => Type.Literal(code)));

/** One failing location reported by the params validator. */
export const ValidationIssue = Type.Object({
  /** JSON Pointer into params, "" for the params object itself. */
  path: Type.String(),
  message: Type.String(),
});
export type ValidationIssue = Static<typeof ValidationIssue>;

/** `invalidParams`: validator issues, or a machine-readable reason such as `untrusted`. */
export const InvalidParamsData = Type.Object({
  errors: Type.Optional(Type.Array(ValidationIssue)),
  reason: Type.Optional(Type.String()),
});
export type InvalidParamsData = Static<typeof InvalidParamsData>;

/** `configConflict`: the file's current version, to reread against. */
export const ConfigConflictData = Type.Object({ version: Type.String() });
export type ConfigConflictData = Static<typeof ConfigConflictData>;

/** `archiveConflict`: the transcripts that still exist, so a client can recover without parsing text. */
export const ArchiveConflictData = Type.Object({
  /** Absolute paths of the files that survived the refused operation. */
  survivingFiles: Type.Array(Type.String()),
  reason: Type.Optional(
    Type.Union([Type.Literal("destinationExists"), Type.Literal("hardLinked"), Type.Literal("other")]),
  ),
});
export type ArchiveConflictData = Static<typeof ArchiveConflictData>;

/** `threadLockedElsewhere`: who holds the lock, when known. */
export const ThreadLockedElsewhereData = Type.Object({
  pid: Type.Optional(Type.Integer()),
  host: Type.Optional(Type.String()),
});
export type ThreadLockedElsewhereData = Static<typeof ThreadLockedElsewhereData>;

/** `turnMismatch`: the turn that is actually running, or null when none is. */
export const TurnMismatchData = Type.Object({
  currentTurnId: Type.Union([Type.String(), Type.Null()]),
});
export type TurnMismatchData = Static<typeof TurnMismatchData>;

/** `lineTooLong`: how large the dropped line was, at least. */
export const LineTooLongData = Type.Object({ limitBytes: Type.Integer() });
export type LineTooLongData = Static<typeof LineTooLongData>;

/** Schemas of the `data` member per error code; codes not listed carry no data. */
export const ERROR_DATA_SCHEMAS = {
  invalidParams: InvalidParamsData,
  configConflict: ConfigConflictData,
  archiveConflict: ArchiveConflictData,
  threadLockedElsewhere: ThreadLockedElsewhereData,
  turnMismatch: TurnMismatchData,
  lineTooLong: LineTooLongData,
} as const;

/** The error member of a response. */
export const WireError = Type.Object({
  code: Type.String(),
  message: Type.String(),
  data: Type.Optional(Type.Unknown()),
});
export type WireError = Static<typeof WireError>;

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
