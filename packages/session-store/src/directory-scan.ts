/**
 * Summaries of every transcript in one directory: stat each file, reuse the index
 * for unchanged ones, read only new or changed ones (at most 64 open at a time).
 */
import { readdirSync, statSync } from "node:fs";
import { type FileHandle, open, readFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import {
  type IndexRecord,
  type LoadedIndex,
  loadThreadIndex,
  saveThreadIndex,
  THREAD_INDEX_FILE,
} from "./thread-index.ts";
import { readHeader, scanAppended, scanTranscript } from "./transcript-scan.ts";

/** How many transcripts a scan keeps open at once. */
export const MAX_OPEN_TRANSCRIPTS = 64;

import { isSessionWorktree, type SessionWorktree } from "./entries.ts";
/**
 * A long-lived lister keeps growth of known transcripts (an active thread's appends) in
 * memory and rewrites the index only once this many grown bytes are unsaved, or when
 * anything else changed. Another process pays at most this much in tail reads.
 */
export const MAX_UNSAVED_GROWTH_BYTES = 1024 * 1024;

/**
 * How a scan reads files (read-only). Every file a scan reads goes through one of
 * these, so a test can count how many are open at once: a file is open from the
 * `readFile` call until it settles, or from `open` until the handle is closed.
 */
export interface ScanIo {
  /** Reads a whole new or changed transcript. */
  readFile(path: string): Promise<Buffer>;
  /** Opens a file for a partial read: the tail of a transcript that grew, a parent's header. */
  open(path: string): Promise<FileHandle>;
}

/** The real filesystem. */
export const defaultScanIo: ScanIo = { readFile: (path) => readFile(path), open: (path) => open(path, "r") };

/** One transcript as a listing shows it. */
export interface SessionSummary {
  /** Thread ID (header ID). */
  id: string;
  path: string;
  cwd: string;
  /** Session name if set, else the first user text; bounded. */
  title: string | undefined;
  name: string | undefined;
  /** Message entries in the file, when known. */
  messageCount: number | undefined;
  /** ISO header creation time. */
  createdAt: string;
  /** ISO file modification time. */
  updatedAt: string;
  parentSession: string | undefined;
  /** The parent's header ID. */
  forkedFromId: string | undefined;
  /** The header's server-owned worktree. */
  worktree?: SessionWorktree;
  archived: boolean;
  sizeBytes: number;
}

/** Cumulative work counters (exposed by `server/diagnostics`). */
export interface ListingCounters {
  /** Transcripts read in full plus parent headers opened. */
  filesOpened: number;
  /** Bytes of transcripts read (parent header lookups add none). */
  bytesScanned: number;
  /** Index files that had to be rebuilt. */
  indexRebuilds: number;
  /** Index writes that failed (the cache is best effort). */
  indexWriteFailures: number;
  /** `.jsonl` files that are not transcripts. */
  invalidFiles: number;
}

/** A fresh set of zeroed counters. */
export function createListingCounters(): ListingCounters {
  return { filesOpened: 0, bytesScanned: 0, indexRebuilds: 0, indexWriteFailures: 0, invalidFiles: 0 };
}

interface Pending {
  name: string;
  size: number;
  mtimeMs: number;
  ino: number;
  /** The cached record of the same file when it only grew: just the appended bytes are read. */
  grownFrom: IndexRecord | undefined;
}

async function mapLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Updates a record from the bytes appended since it was cached (an active thread's
 * transcript grows on every entry; rereading it whole on each listing would not scale).
 * Undefined when the old size did not end a line, so the caller rescans the whole file.
 */
async function rescanTail(
  path: string,
  file: Pending,
  cached: IndexRecord,
  counters: ListingCounters,
  io: ScanIo,
): Promise<IndexRecord | undefined> {
  let handle: FileHandle | undefined;
  let tail: Buffer;
  try {
    handle = await io.open(path);
    const length = file.size - cached.size + 1;
    tail = Buffer.alloc(length);
    const { bytesRead } = await handle.read(tail, 0, length, cached.size - 1);
    tail = tail.subarray(0, bytesRead);
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
  counters.filesOpened++;
  counters.bytesScanned += tail.length;
  if (tail[0] !== 0x0a) return undefined;
  const facts = scanAppended(tail.subarray(1));
  const record: IndexRecord = { ...cached, size: file.size, mtimeMs: file.mtimeMs, ino: file.ino };
  if (facts.nameChanged) {
    if (facts.name === undefined) delete record.name;
    else record.name = facts.name;
  }
  if (record.firstUserText === undefined && facts.firstUserText !== undefined) {
    record.firstUserText = facts.firstUserText;
  }
  if (record.messageCount !== undefined) record.messageCount += facts.messageCount;
  const title = record.name ?? record.firstUserText;
  if (title === undefined) delete record.title;
  else record.title = title;
  return record;
}

/**
 * The index of a directory as last loaded or written by this process, keyed by the
 * index file's size, mtime and inode: while those match, the file need not be parsed again.
 */
export interface IndexMemo {
  key: string;
  records: Map<string, IndexRecord>;
  /** Summaries made from these records (reused while a record is unchanged), and the last result. */
  summaries?: Map<IndexRecord, SessionSummary>;
  out?: readonly SessionSummary[];
  /** Bytes transcripts grew by since the index file was last written (newer records live only here). */
  unsavedGrowth?: number;
}

function toSummary(dir: string, name: string, record: IndexRecord, archived: boolean): SessionSummary {
  return Object.freeze({
    id: record.id!,
    path: `${dir}${sep}${name}`,
    cwd: record.cwd ?? "",
    title: record.title,
    name: record.name,
    messageCount: record.messageCount,
    createdAt: record.createdAt ?? new Date(record.mtimeMs).toISOString(),
    updatedAt: new Date(record.mtimeMs).toISOString(),
    parentSession: record.parentSession,
    forkedFromId: record.forkedFromId,
    ...(record.worktree ? { worktree: record.worktree } : {}),
    archived,
    sizeBytes: record.size,
  });
}

/** Identifies the index file as it is on disk; a directory without one (say, read-only) has a key too. */
function indexFileKey(dir: string): string {
  const st = statSync(join(dir, THREAD_INDEX_FILE), { throwIfNoEntry: false });
  return st ? `${st.size}:${st.mtimeMs}:${st.ino}` : "none";
}

/**
 * Scans one directory and returns its summaries (unsorted, frozen). A missing directory
 * has none. `memos` (per directory) lets a long-lived lister skip re-parsing an index it
 * wrote; when nothing changed it returns the very array of the previous scan. At most
 * `MAX_OPEN_TRANSCRIPTS` files are open at once, all through `io`.
 */
export async function scanDirectory(
  dir: string,
  archived: boolean,
  counters: ListingCounters,
  memos?: Map<string, IndexMemo>,
  io: ScanIo = defaultScanIo,
): Promise<readonly SessionSummary[]> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const prefix = `${dir}${sep}`;
  const memo = memos?.get(dir);
  const key = memo ? indexFileKey(dir) : undefined;
  const loaded: LoadedIndex =
    memo && key === memo.key ? { records: memo.records, rebuildReason: undefined } : loadThreadIndex(dir);
  if (loaded.rebuildReason !== undefined && loaded.rebuildReason !== "missing") counters.indexRebuilds++;
  const previous = loaded.records;
  const next = new Map<string, IndexRecord>();
  const pending: Pending[] = [];
  let changed = loaded.rebuildReason !== undefined;
  /** Anything beyond known transcripts growing: such changes are written to the index at once. */
  let structural = changed;
  let grownBytes = 0;
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue;
    const st = statSync(prefix + name, { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    const cached = previous.get(name);
    if (cached && cached.size === st.size && cached.mtimeMs === st.mtimeMs && cached.ino === st.ino) {
      next.set(name, cached);
    } else {
      const grew = cached !== undefined && !cached.invalid && cached.ino === st.ino && st.size > cached.size;
      pending.push({
        name,
        size: st.size,
        mtimeMs: st.mtimeMs,
        ino: st.ino,
        grownFrom: grew ? cached : undefined,
      });
      changed = true;
      if (!grew) structural = true;
    }
  }
  if (next.size + pending.length !== previous.size) changed = structural = true;

  await mapLimited(pending, MAX_OPEN_TRANSCRIPTS, async (file) => {
    if (file.grownFrom) {
      const record = await rescanTail(prefix + file.name, file, file.grownFrom, counters, io);
      if (record) {
        next.set(file.name, record);
        grownBytes += file.size - file.grownFrom.size;
        return;
      }
    }
    structural = true;
    let buf: Buffer;
    try {
      buf = await io.readFile(prefix + file.name);
    } catch {
      return;
    }
    counters.filesOpened++;
    counters.bytesScanned += buf.length;
    const facts = scanTranscript(buf);
    const base = { size: file.size, mtimeMs: file.mtimeMs, ino: file.ino };
    if (!facts) {
      counters.invalidFiles++;
      next.set(file.name, { ...base, invalid: true });
      return;
    }
    const { header } = facts;
    const record: IndexRecord = {
      ...base,
      id: header.id,
      cwd: typeof header.cwd === "string" ? header.cwd : "",
      createdAt: header.timestamp,
      messageCount: facts.messageCount,
    };
    const title = facts.name ?? facts.firstUserText;
    if (title !== undefined) record.title = title;
    if (facts.name !== undefined) record.name = facts.name;
    if (facts.firstUserText !== undefined) record.firstUserText = facts.firstUserText;
    if (header.parentSession !== undefined) record.parentSession = header.parentSession;
    if (isSessionWorktree(header.worktree)) record.worktree = header.worktree;
    if (header.forkedFromId !== undefined) {
      record.forkedFromId = header.forkedFromId;
      record.forkResolved = true;
    }
    next.set(file.name, record);
  });

  // Fork origins: resolved once from the parent's header, then cached with the record.
  for (const [, record] of next) {
    if (record.invalid || record.forkResolved || record.parentSession === undefined) continue;
    const parentPath = isAbsolute(record.parentSession)
      ? record.parentSession
      : resolve(dir, record.parentSession);
    counters.filesOpened++;
    let parent = await readHeader(parentPath, io);
    if (!parent) {
      // The parent may have been archived or unarchived since the fork was made.
      const alt =
        basename(dirname(parentPath)) === "archive"
          ? join(dirname(dirname(parentPath)), basename(parentPath))
          : join(dirname(parentPath), "archive", basename(parentPath));
      counters.filesOpened++;
      parent = await readHeader(alt, io);
    }
    if (parent) record.forkedFromId = parent.id;
    record.forkResolved = true;
    changed = structural = true;
  }

  let saved = false;
  let unsaved = (memo && key === memo.key ? (memo.unsavedGrowth ?? 0) : 0) + grownBytes;
  if (changed && (structural || !memos || unsaved > MAX_UNSAVED_GROWTH_BYTES)) {
    saved = saveThreadIndex(dir, next);
    if (saved) unsaved = 0;
    else counters.indexWriteFailures++;
  }

  const previousSummaries = memo?.summaries;
  const summaries = new Map<IndexRecord, SessionSummary>();
  const out: SessionSummary[] = [];
  let reused = 0;
  for (const [name, record] of next) {
    if (record.invalid || record.id === undefined) continue;
    let summary = previousSummaries?.get(record);
    // A record object is only ever reused under its own name, in this directory.
    if (summary?.archived === archived) reused++;
    else summary = toSummary(dir, name, record, archived);
    summaries.set(record, summary);
    out.push(summary);
  }
  const unchanged =
    !changed && memo?.out !== undefined && reused === out.length && reused === memo.out.length;
  // Not frozen (freezing a large array is slow); callers get it as readonly and must not mutate it.
  const result: readonly SessionSummary[] = unchanged ? memo!.out! : out;
  if (memos) {
    // Keyed by the index file as it is on disk now: while nobody rewrites it, these newer records stand.
    const fileKey = saved || key === undefined ? indexFileKey(dir) : key;
    memos.set(dir, { key: fileKey, records: next, summaries, out: result, unsavedGrowth: unsaved });
  }
  return result;
}
