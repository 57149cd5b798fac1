/**
 * Local errors of the session store. Each carries `code`, the exact wire code the
 * spec names, so the app server can map them 1:1 onto `AppServerError`.
 */

/** Wire codes the store's errors carry; `ownershipLost` and `invalidSession` are local-only. */
export type SessionStoreErrorCode =
  | "threadLockedElsewhere"
  | "archiveConflict"
  | "threadNotArchived"
  | "invalidCursor"
  | "threadNotFound"
  | "ownershipLost"
  | "invalidSession";

/** Base class: every store error has a stable `code` and optional structured `data`. */
export class SessionStoreError extends Error {
  readonly code: SessionStoreErrorCode;
  readonly data: Record<string, unknown> | undefined;

  constructor(
    code: SessionStoreErrorCode,
    message: string,
    data?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.data = data;
  }
}

/** Another owner (another process, or another open in this one) holds the transcript's lock, or it is hard-linked. */
export class ThreadLockedElsewhereError extends SessionStoreError {
  constructor(path: string, data: Record<string, unknown>) {
    super("threadLockedElsewhere", `session ${path} is owned elsewhere`, { path, ...data });
  }
}

/** An archive move or delete was refused; `data.surviving` names the transcripts that still exist. */
export class ArchiveConflictError extends SessionStoreError {
  constructor(message: string, data: { reason: string; surviving: string[]; [key: string]: unknown }) {
    super("archiveConflict", message, data);
  }
}

/** Delete was asked for a transcript that is not in an `archive/` folder. */
export class ThreadNotArchivedError extends SessionStoreError {
  constructor(path: string) {
    super("threadNotArchived", `session ${path} is not archived`, { path });
  }
}

/** A list or history cursor that is expired, evicted, foreign, diverged or malformed. */
export class InvalidCursorError extends SessionStoreError {
  constructor(reason: string) {
    super("invalidCursor", `invalid cursor: ${reason}`, { reason });
  }
}

/** No transcript with that thread ID (or at that path). */
export class ThreadNotFoundError extends SessionStoreError {
  constructor(what: string) {
    super("threadNotFound", `thread not found: ${what}`, { thread: what });
  }
}

/** The owner's lock was removed or replaced; the owner must stop writing. */
export class OwnershipLostError extends SessionStoreError {
  constructor(path: string, reason: string) {
    super("ownershipLost", `ownership of ${path} was lost: ${reason}`, { path, reason });
  }
}

/** The file is not a session transcript (no valid header line). */
export class InvalidSessionError extends SessionStoreError {
  constructor(path: string, reason: string) {
    super("invalidSession", `not a session file: ${path}: ${reason}`, { path, reason });
  }
}
