/**
 * Turns local errors into wire errors. The session store's errors already carry the
 * spec's code; anything unexpected becomes `internal` rather than leaking a stack.
 */
import { AppServerError, type ErrorCode } from "@knightcode/app-server-protocol";
import { SessionStoreError, type SessionStoreErrorCode } from "@knightcode/session-store";

/** Work reached a runtime unloaded since the thread was looked up; a fresh lookup loads it again. */
export class StaleRuntimeError extends AppServerError {
  constructor(threadId: string) {
    super("internal", `Thread ${threadId} was unloaded while the request waited`);
  }
}

/** True for a session store error with the given code (the store's own classes, never a look-alike). */
export function isStoreError(error: unknown, code: SessionStoreErrorCode): error is SessionStoreError {
  return error instanceof SessionStoreError && error.code === code;
}

const STORE_CODES = new Set([
  "threadLockedElsewhere",
  "archiveConflict",
  "threadNotArchived",
  "invalidCursor",
  "threadNotFound",
]);

/** The wire form of any error thrown inside the manager. */
export function toWireError(error: unknown): AppServerError {
  if (error instanceof AppServerError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof SessionStoreError)) return new AppServerError("internal", message);
  const code = error.code;
  // Losing the lock mid-request means another process now owns the transcript.
  if (code === "ownershipLost") return new AppServerError("threadLockedElsewhere", message);
  // A file named like a transcript but without a session header (empty, junk) holds no thread.
  if (code === "invalidSession") return new AppServerError("threadNotFound", message);
  if (STORE_CODES.has(code)) {
    const data = error.data;
    if (code === "archiveConflict" && data && Array.isArray(data.surviving)) {
      return new AppServerError(code, message, { ...data, survivingFiles: data.surviving });
    }
    return new AppServerError(code, message, data);
  }
  return new AppServerError("internal", message);
}

/**
 * Whether an error is, on the wire, the given code: an `AppServerError` with it, or a store
 * error that `toWireError` turns into it. The one check for "which error is this".
 */
export function isWireError(error: unknown, code: ErrorCode): boolean {
  return toWireError(error).code === code;
}

/** Runs `fn`, rethrowing failures as wire errors. */
export async function wire<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toWireError(error);
  }
}
