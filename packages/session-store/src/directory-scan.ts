/**
 * Summaries of every transcript in one directory: stat each file, reuse the index
 * for unchanged ones, read only new or changed ones (at most 64 open at a time).
 */
import { readdirSync, statSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
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

/** One transcript as a listing shows it. */
export interface SessionSummary {
  /** Thread ID (header ID). */
  id: string;
  path: string;
  cwd: string;
  /** Session name if set, else the first user text; bounded. */
  title: string | undefined;
  name: string | undefined;
  /** ISO header creation time. */
  createdAt: string;
  /** ISO file modification time. */
  updatedAt: string;
  parentSession: string | undefined;
  /** The parent's header ID. */
  forkedFromId: string | undefined;
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
): Promise<IndexRecord | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  let tail: Buffer;
  try {
    handle = await open(path, "r");
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
}

function indexFileKey(dir: string): string | undefined {
  const st = statSync(join(dir, THREAD_INDEX_FILE), { throwIfNoEntry: false });
  return st ? `${st.size}:${st.mtimeMs}:${st.ino}` : undefined;
}

/**
 * Scans one directory and returns its summaries (unsorted). A missing directory has
 * none. `memos` (per directory) lets a long-lived lister skip re-parsing an index it wrote.
 */
export async function scanDirectory(
  dir: string,
  archived: boolean,
  counters: ListingCounters,
  memos?: Map<string, IndexMemo>,
): Promise<SessionSummary[]> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
  } catch {
    return [];
  }
  const memo = memos?.get(dir);
  const key = memo ? indexFileKey(dir) : undefined;
  const loaded: LoadedIndex =
    memo && key === memo.key ? { records: memo.records, rebuildReason: undefined } : loadThreadIndex(dir);
  if (loaded.rebuildReason !== undefined && loaded.rebuildReason !== "missing") counters.indexRebuilds++;
  const previous = loaded.records;
  const next = new Map<string, IndexRecord>();
  const pending: Pending[] = [];
  let changed = loaded.rebuildReason !== undefined;
  for (const name of names) {
    const st = statSync(join(dir, name), { throwIfNoEntry: false });
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
    }
  }
  if (next.size + pending.length !== previous.size) changed = true;

  await mapLimited(pending, MAX_OPEN_TRANSCRIPTS, async (file) => {
    if (file.grownFrom) {
      const record = await rescanTail(join(dir, file.name), file, file.grownFrom, counters);
      if (record) {
        next.set(file.name, record);
        return;
      }
    }
    let buf: Buffer;
    try {
      buf = await readFile(join(dir, file.name));
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
    };
    const title = facts.name ?? facts.firstUserText;
    if (title !== undefined) record.title = title;
    if (facts.name !== undefined) record.name = facts.name;
    if (facts.firstUserText !== undefined) record.firstUserText = facts.firstUserText;
    if (header.parentSession !== undefined) record.parentSession = header.parentSession;
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
    let parent = await readHeader(parentPath);
    if (!parent) {
      // The parent may have been archived or unarchived since the fork was made.
      const alt =
        basename(dirname(parentPath)) === "archive"
          ? join(dirname(dirname(parentPath)), basename(parentPath))
          : join(dirname(parentPath), "archive", basename(parentPath));
      counters.filesOpened++;
      parent = await readHeader(alt);
    }
    if (parent) record.forkedFromId = parent.id;
    record.forkResolved = true;
    changed = true;
  }

  if (changed && !saveThreadIndex(dir, next)) counters.indexWriteFailures++;
  if (memos) {
    const written = indexFileKey(dir);
    if (written === undefined || (changed && written === key)) memos.delete(dir);
    else memos.set(dir, { key: written, records: next });
  }

  const out: SessionSummary[] = [];
  for (const [name, record] of next) {
    if (record.invalid || record.id === undefined) continue;
    out.push({
      id: record.id,
      path: join(dir, name),
      cwd: record.cwd ?? "",
      title: record.title,
      name: record.name,
      createdAt: record.createdAt ?? new Date(record.mtimeMs).toISOString(),
      updatedAt: new Date(record.mtimeMs).toISOString(),
      parentSession: record.parentSession,
      forkedFromId: record.forkedFromId,
      archived,
      sizeBytes: record.size,
    });
  }
  return out;
}
