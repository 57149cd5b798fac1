/**
 * A cross-process lock beside a file (`<file>.lock`) holding the owner's pid, host and
 * start time. It is created atomically with its contents (hard link of a finished temp
 * file), so a waiter never reads a half-written owner. A lock whose owner is a dead
 * process on this host, or that is older than any write could take, is taken over.
 */
import { link, mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { isErrnoCode, storageFailure } from "./errors.ts";
import { randomHex } from "./random-hex.ts";

/** How a lock waits. */
export interface FileLockOptions {
  /** Give up (with `internal`) after this long; default 15 s. */
  timeoutMs?: number;
  /** A lock older than this is stale whatever its owner; default 60 s. */
  staleMs?: number;
}

interface LockOwner {
  pid: number;
  host: string;
  startedAt: number;
  token: string;
}

const HOST = hostname();

/** Runs `fn` while holding the cross-process lock of `path`; the lock is released even when `fn` throws. */
export async function withFileLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const lockPath = `${path}.lock`;
  const token = await acquire(lockPath, options.timeoutMs ?? 15_000, options.staleMs ?? 60_000);
  try {
    return await fn();
  } finally {
    await release(lockPath, token);
  }
}

async function acquire(lockPath: string, timeoutMs: number, staleMs: number): Promise<string> {
  const token = `${process.pid}-${randomHex(8)}`;
  const owner: LockOwner = { pid: process.pid, host: HOST, startedAt: Date.now(), token };
  const temp = `${lockPath}.${token}.tmp`;
  try {
    await mkdir(dirname(lockPath), { recursive: true });
    await writeFile(temp, JSON.stringify(owner), { flag: "wx" });
  } catch (error) {
    throw storageFailure(`Cannot create lock ${lockPath}`, error);
  }
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  try {
    for (;;) {
      try {
        await link(temp, lockPath);
        return token;
      } catch (error) {
        if (!isErrnoCode(error, "EEXIST")) throw storageFailure(`Cannot take lock ${lockPath}`, error);
      }
      if (await takeOverIfStale(lockPath, staleMs)) continue;
      if (Date.now() >= deadline) {
        throw storageFailure(`Timed out waiting for lock ${lockPath}`);
      }
      // Jitter keeps two waiting processes from retrying in lockstep.
      await Bun.sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 50);
    }
  } finally {
    await unlink(temp).catch(() => undefined); // the link (if any) keeps the lock alive
  }
}

async function readOwner(lockPath: string): Promise<{ raw: string; owner: LockOwner | null } | null> {
  let raw: string;
  try {
    raw = await readFile(lockPath, "utf8");
  } catch (error) {
    if (isErrnoCode(error, "ENOENT")) return null;
    throw storageFailure(`Cannot read lock ${lockPath}`, error);
  }
  return { raw, owner: parseOwner(raw) };
}

/** The owner recorded in a lock, or null for content no lock writer produces (treated as stale). */
function parseOwner(raw: string): LockOwner | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { pid, host, startedAt, token } = value as Record<string, unknown>;
  if (typeof pid !== "number" || typeof host !== "string" || typeof startedAt !== "number") return null;
  if (typeof token !== "string") return null;
  return { pid, host, startedAt, token };
}

function isStale(owner: LockOwner | null, staleMs: number): boolean {
  if (owner === null) return true;
  if (Date.now() - owner.startedAt > staleMs) return true;
  if (owner.host !== HOST) return false;
  return !isAlive(owner.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM means the process exists but belongs to someone else.
    return isErrnoCode(error, "EPERM");
  }
}

/** Removes a stale lock; true when the caller should retry at once. */
async function takeOverIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  const seen = await readOwner(lockPath);
  if (seen === null) return true; // released between our attempt and the read
  if (!isStale(seen.owner, staleMs)) return false;
  // Move the stale lock aside and check it is still the one judged stale: if another
  // waiter took over first, the file we moved is its fresh lock and goes back.
  const aside = `${lockPath}.${process.pid}.${randomHex(6)}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (isErrnoCode(error, "ENOENT")) return true;
    throw storageFailure(`Cannot take over stale lock ${lockPath}`, error);
  }
  const moved = await readFile(aside, "utf8").catch(() => null);
  if (moved !== null && moved !== seen.raw) {
    await link(aside, lockPath).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
  return true;
}

async function release(lockPath: string, token: string): Promise<void> {
  const seen = await readOwner(lockPath).catch(() => null);
  // Only remove our own lock: a takeover after a stall may have handed it to someone else.
  if (seen?.owner?.token === token) await unlink(lockPath).catch(() => undefined);
}
