/**
 * Ownership of a transcript: a lock file beside its real path, created with O_EXCL,
 * holding pid, host and start time. A dead pid's lock on this host is taken over.
 */
import { closeSync, fstatSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { OwnershipLostError, ThreadLockedElsewhereError } from "./errors.ts";

/** What a lock file holds. */
export interface LockInfo {
  pid: number;
  host: string;
  /** Unix milliseconds when the owning process started. */
  startedAt: number;
  /** Random per acquisition, so a takeover can tell one lock from its successor. */
  token: string;
}

const HOST = hostname();
const PROCESS_STARTED_AT = Math.round(performance.timeOrigin);
/** Lock files this process holds, by path: a second open in the same process is refused too. */
const heldHere = new Set<string>();
/** A lock file without readable content younger than this is assumed mid-creation. */
const UNWRITTEN_LOCK_GRACE_MS = 5000;

/** The lock file path for a transcript's real path. */
export function lockPathFor(realPath: string): string {
  return `${realPath}.lock`;
}

/** True when a process with that pid exists (EPERM still means it exists). */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Reads a lock file; undefined when it is missing or unreadable. */
export function readLockInfo(lockPath: string): LockInfo | undefined {
  try {
    const value = JSON.parse(readFileSync(lockPath, "utf8")) as Partial<LockInfo>;
    if (typeof value.pid === "number" && typeof value.host === "string" && typeof value.token === "string") {
      return value as LockInfo;
    }
  } catch {
    // Missing, half-written or foreign: the caller decides from the file's age.
  }
  return undefined;
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Slack between a lock's recorded start time and the kernel's, before the pid counts as reused. */
const PID_REUSE_SLACK_MS = 5000;

/** Unix ms when a process started, from /proc on Linux; undefined elsewhere or when unknown. */
export function processStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22 (starttime, clock ticks since boot) follows the parenthesized command name.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[19]);
    const btime = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
    if (!btime || !Number.isFinite(ticks)) return undefined;
    return Number(btime[1]) * 1000 + (ticks * 1000) / 100;
  } catch {
    return undefined;
  }
}

function isStale(info: LockInfo): boolean {
  if (info.host !== HOST) return false;
  // Our own pid without our registration is a leftover of an earlier process that had this pid.
  if (info.pid === process.pid) return true;
  if (!isPidAlive(info.pid)) return true;
  // A live pid that started well after the lock's owner is a reused pid, not the owner.
  const started = processStartTime(info.pid);
  return (
    started !== undefined &&
    typeof info.startedAt === "number" &&
    started - info.startedAt > PID_REUSE_SLACK_MS
  );
}

/** A held lock on one transcript. */
export class SessionLock {
  readonly lockPath: string;
  readonly info: LockInfo;
  #ino: number;
  #dev: number;
  /**
   * The lock file stays open while held: its inode cannot be freed and handed to a
   * successor's lock file, so comparing inode numbers tells our lock from a new one.
   */
  #fd: number;
  #released = false;

  private constructor(lockPath: string, info: LockInfo, fd: number, ino: number, dev: number) {
    this.lockPath = lockPath;
    this.info = info;
    this.#fd = fd;
    this.#ino = ino;
    this.#dev = dev;
  }

  /** Takes the lock of a transcript's real path or throws `ThreadLockedElsewhereError`. */
  static acquire(realPath: string): SessionLock {
    const lockPath = lockPathFor(realPath);
    if (heldHere.has(lockPath)) {
      throw new ThreadLockedElsewhereError(realPath, {
        pid: process.pid,
        host: HOST,
        reason: "ownedByThisProcess",
      });
    }
    for (let attempt = 0; attempt < 8; attempt++) {
      const info: LockInfo = {
        pid: process.pid,
        host: HOST,
        startedAt: PROCESS_STARTED_AT,
        token: crypto.randomUUID(),
      };
      let fd: number;
      try {
        fd = openSync(lockPath, "wx", 0o644);
      } catch (error) {
        if (errno(error) !== "EEXIST") throw error;
        const existing = readLockInfo(lockPath);
        if (existing === undefined) {
          if (!unwrittenLockIsOld(lockPath)) {
            throw new ThreadLockedElsewhereError(realPath, { reason: "lockBeingCreated" });
          }
          takeOver(lockPath, undefined, realPath);
          continue;
        }
        if (!isStale(existing)) {
          throw new ThreadLockedElsewhereError(realPath, {
            pid: existing.pid,
            host: existing.host,
            startedAt: existing.startedAt,
          });
        }
        takeOver(lockPath, existing, realPath);
        continue;
      }
      try {
        writeSync(fd, JSON.stringify(info));
        const st = fstatSync(fd);
        heldHere.add(lockPath);
        return new SessionLock(lockPath, info, fd, st.ino, st.dev);
      } catch (error) {
        closeSync(fd);
        throw error;
      }
    }
    throw new ThreadLockedElsewhereError(realPath, { reason: "contended" });
  }

  /** Throws `OwnershipLostError` unless our lock file is still the one at the lock path. */
  verify(): void {
    if (this.#released) throw new OwnershipLostError(this.lockPath, "lock released");
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(this.lockPath);
    } catch {
      throw new OwnershipLostError(this.lockPath, "lock file removed");
    }
    if (st.ino !== this.#ino || st.dev !== this.#dev) {
      throw new OwnershipLostError(this.lockPath, "lock file replaced");
    }
  }

  /** Whether `verify` would pass. */
  get held(): boolean {
    try {
      this.verify();
      return true;
    } catch {
      return false;
    }
  }

  /** Removes the lock file if it is still ours; idempotent. */
  release(): void {
    if (this.#released) return;
    const ours = this.held;
    this.#released = true;
    heldHere.delete(this.lockPath);
    if (ours) {
      try {
        unlinkSync(this.lockPath);
      } catch {
        // Already gone: nothing left to release.
      }
    }
    closeSync(this.#fd);
  }

  /** `using` support: releases the lock. */
  [Symbol.dispose](): void {
    this.release();
  }
}

function unwrittenLockIsOld(lockPath: string): boolean {
  try {
    return Date.now() - statSync(lockPath).mtimeMs > UNWRITTEN_LOCK_GRACE_MS;
  } catch {
    return true;
  }
}

/** Unlinks the lock only if it still is the one judged stale (same token, or still unwritten and old). */
function removeIfUnchanged(lockPath: string, expected: LockInfo | undefined): void {
  const now = readLockInfo(lockPath);
  if (now?.token !== expected?.token) return;
  if (expected === undefined && !unwrittenLockIsOld(lockPath)) return;
  try {
    unlinkSync(lockPath);
  } catch (error) {
    if (errno(error) !== "ENOENT") throw error;
  }
}

/**
 * Removes a dead owner's lock. A guard file (itself O_EXCL) makes the check-and-unlink
 * atomic among contenders, so nobody removes a lock another contender just created.
 */
function takeOver(lockPath: string, stale: LockInfo | undefined, realPath: string): void {
  const guard = `${lockPath}.takeover`;
  let fd: number;
  try {
    fd = openSync(guard, "wx", 0o644);
  } catch (error) {
    if (errno(error) !== "EEXIST") throw error;
    const holder = readLockInfo(guard);
    if (holder && isStale(holder)) {
      removeIfUnchanged(guard, holder);
      return;
    }
    if (!holder && unwrittenLockIsOld(guard)) {
      removeIfUnchanged(guard, undefined);
      return;
    }
    throw new ThreadLockedElsewhereError(realPath, { reason: "takeoverInProgress" });
  }
  try {
    // A token of its own, so a contender removing a stale guard never removes this one by mistake.
    writeSync(
      fd,
      JSON.stringify({
        pid: process.pid,
        host: HOST,
        startedAt: PROCESS_STARTED_AT,
        token: crypto.randomUUID(),
      }),
    );
    closeSync(fd);
    removeIfUnchanged(lockPath, stale);
  } finally {
    try {
      unlinkSync(guard);
    } catch {
      // Best effort: a leftover guard of a live process is retried, a dead one taken over.
    }
  }
}
