/** `nothingToUndo`: how many turns this server already undid on the thread (0: none had a checkpoint). */
export const NothingToUndoData = Type.Object({ undone: Type.Integer({ minimum: 0 }) });
export type NothingToUndoData = Static<typeof NothingToUndoData>;

/** Schemas of the `data` member of wire errors, per code. */
import Type, { type Static } from "typebox";
import { ERROR_CODES } from "./errors.ts";

export const ErrorCodeSchema = Type.Union(ERROR_CODES.map((code) => Type.Literal(code)));

export const ValidationIssueSchema = Type.Object({
  /** JSON Pointer into params, "" for the params object itself. */
  path: Type.String(),
  message: Type.String(),
});

/** `invalidParams`: validator issues, or a machine-readable reason such as `untrusted`. */
export const InvalidParamsData = Type.Object({
  errors: Type.Optional(Type.Array(ValidationIssueSchema)),
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

/** `overloaded`: when to try again; nothing was done. */
export const OverloadedData = Type.Object({ retryAfterMs: Type.Integer({ minimum: 0 }) });
export type OverloadedData = Static<typeof OverloadedData>;

/** `worktreeConflict`: the paths that would conflict; nothing was changed. */
export const WorktreeConflictData = Type.Object({ files: Type.Array(Type.String()) });
export type WorktreeConflictData = Static<typeof WorktreeConflictData>;

/** Schemas of the `data` member per error code; codes not listed carry no data. */
export const ERROR_DATA_SCHEMAS = {
  invalidParams: InvalidParamsData,
  configConflict: ConfigConflictData,
  archiveConflict: ArchiveConflictData,
  threadLockedElsewhere: ThreadLockedElsewhereData,
  turnMismatch: TurnMismatchData,
  lineTooLong: LineTooLongData,
  overloaded: OverloadedData,
  worktreeConflict: WorktreeConflictData,
  nothingToUndo: NothingToUndoData,
} as const;
