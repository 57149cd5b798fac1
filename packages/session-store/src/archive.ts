/**
 * Archive, unarchive and delete. Moves own both paths, never overwrite another
 * transcript (link + unlink, not rename) and refuse hard-linked transcripts.
 */
import {
  constants,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  realpathSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import {
  ArchiveConflictError,
  ThreadLockedElsewhereError,
  ThreadNotArchivedError,
  ThreadNotFoundError,
} from "./errors.ts";
import { ARCHIVE_DIR_NAME } from "./locations.ts";
import { SessionLock } from "./lock.ts";
import { readHeader } from "./transcript-scan.ts";

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    if (errno(error) === "ENOENT") throw new ThreadNotFoundError(path);
    throw error;
  }
}

/** Whether a transcript path lies directly in an `archive/` folder. */
export function isArchivedPath(path: string): boolean {
  return basename(dirname(path)) === ARCHIVE_DIR_NAME;
}

function refuseHardLinks(realPath: string, surviving: string[]): void {
  if (statSync(realPath).nlink > 1) {
    throw new ArchiveConflictError(`${realPath} has more than one hard link`, {
      reason: "hardLinked",
      surviving,
    });
  }
}

/** Moves a transcript without ever replacing an existing file at the destination. */
function moveNoReplace(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (error) {
    if (errno(error) === "EEXIST") {
      throw new ArchiveConflictError(`${to} already exists`, {
        reason: "destinationExists",
        source: from,
        destination: to,
        surviving: [from, to],
      });
    }
    if (errno(error) !== "EXDEV") throw error;
    copyFileSync(from, to, constants.COPYFILE_EXCL);
  }
  try {
    unlinkSync(from);
  } catch (error) {
    throw new ArchiveConflictError(`moved ${from} to ${to} but could not remove the source`, {
      reason: "sourceNotRemoved",
      source: from,
      destination: to,
      surviving: [from, to],
      cause: String(error),
    });
  }
}

function moveOwned(realSrc: string, destDir: string): string {
  mkdirSync(destDir, { recursive: true });
  const dest = join(realpathSync(destDir), basename(realSrc));
  const srcLock = SessionLock.acquire(realSrc);
  try {
    let destLock: SessionLock;
    try {
      destLock = SessionLock.acquire(dest);
    } catch (error) {
      if (error instanceof ThreadLockedElsewhereError && existsSync(dest)) {
        throw new ArchiveConflictError(`${dest} already exists and is in use`, {
          reason: "destinationExists",
          source: realSrc,
          destination: dest,
          surviving: [realSrc, dest],
        });
      }
      throw error;
    }
    try {
      refuseHardLinks(realSrc, [realSrc]);
      if (existsSync(dest)) {
        throw new ArchiveConflictError(`${dest} already exists`, {
          reason: "destinationExists",
          source: realSrc,
          destination: dest,
          surviving: [realSrc, dest],
        });
      }
      srcLock.verify();
      moveNoReplace(realSrc, dest);
      return dest;
    } finally {
      destLock.release();
    }
  } finally {
    srcLock.release();
  }
}

/** Moves a live transcript into `archive/` beside it; returns the new path. */
export function archiveSession(path: string): string {
  const realSrc = realPathOf(path);
  if (isArchivedPath(realSrc)) {
    throw new ArchiveConflictError(`${realSrc} is already archived`, {
      reason: "alreadyArchived",
      surviving: [realSrc],
    });
  }
  return moveOwned(realSrc, join(dirname(realSrc), ARCHIVE_DIR_NAME));
}

/** Moves an archived transcript back beside the `archive/` folder; returns the new path. */
export function unarchiveSession(path: string): string {
  const realSrc = realPathOf(path);
  if (!isArchivedPath(realSrc)) throw new ThreadNotArchivedError(realSrc);
  return moveOwned(realSrc, dirname(dirname(realSrc)));
}

/**
 * Permanently removes an archived transcript: lock, re-verify (still archived, one
 * link, same thread), unlink. `expectedId` guards against a file swapped in meanwhile.
 */
export async function deleteArchivedSession(path: string, expectedId?: string): Promise<void> {
  const realPath = realPathOf(path);
  if (!isArchivedPath(realPath)) throw new ThreadNotArchivedError(realPath);
  const lock = SessionLock.acquire(realPath);
  try {
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(realPath);
    } catch {
      throw new ThreadNotFoundError(realPath);
    }
    if (st.nlink > 1) {
      throw new ArchiveConflictError(`${realPath} has more than one hard link`, {
        reason: "hardLinked",
        surviving: [realPath],
      });
    }
    if (expectedId !== undefined) {
      const header = await readHeader(realPath);
      if (header?.id !== expectedId) throw new ThreadNotFoundError(expectedId);
    }
    if (realPathOf(realPath) !== realPath || !isArchivedPath(realPath))
      throw new ThreadNotArchivedError(realPath);
    lock.verify();
    unlinkSync(realPath);
  } finally {
    lock.release();
  }
}
