/**
 * Thread listings across transcript directories: newest first, filtered, paged
 * through immutable snapshots (at most 32, five-minute sliding expiry).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  createListingCounters,
  type IndexMemo,
  type ListingCounters,
  type ScanIo,
  type SessionSummary,
  scanDirectory,
} from "./directory-scan.ts";
import { InvalidCursorError, ThreadNotFoundError } from "./errors.ts";
import { ARCHIVE_DIR_NAME } from "./locations.ts";

/** Snapshots kept for continuations. */
export const MAX_LIST_SNAPSHOTS = 32;
/** A snapshot unused this long expires; each use restarts the clock. */
export const LIST_SNAPSHOT_TTL_MS = 5 * 60 * 1000;
/** Default page size of a listing. */
export const DEFAULT_LIST_LIMIT = 50;
/** A list page stays under 1 MiB including this reserve for the response envelope. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
export const ENVELOPE_RESERVE_BYTES = 16 * 1024;

/** What to list. `dirs` are live transcript directories; archived listings read their `archive/` folders. */
export interface ListQuery {
  dirs: readonly string[];
  archived?: boolean;
  /** Only threads whose header cwd equals this. */
  cwd?: string;
  limit?: number;
  cursor?: string;
  /** Byte budget of the page's summaries; defaults to 1 MiB minus the envelope reserve. */
  maxBytes?: number;
  /** Size of one summary as the caller will send it; defaults to its JSON length. */
  measure?: (summary: SessionSummary) => number;
}

/** One page of a listing. */
export interface ListPage {
  threads: SessionSummary[];
  nextCursor?: string;
}

interface Snapshot {
  summaries: readonly SessionSummary[];
  filterKey: string;
  lastUsed: number;
}

/** Options of `ThreadLister`. */
export interface ThreadListerOptions {
  /** Injectable clock (Unix ms) for snapshot expiry. */
  now?: () => number;
  /** How transcripts are opened (tests count open files through it). */
  io?: ScanIo;
}

/** Sorted listings kept for reuse while no directory changed, per (archived, dirs). */
const MAX_SORTED_LISTINGS = 8;

/** Lists subdirectories of the per-project layout root (`<agent-dir>/sessions`). */
export function projectSessionDirs(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name.startsWith("--"))
      .map((d) => join(root, d.name))
      .sort();
  } catch {
    return [];
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function filterKey(query: ListQuery): string {
  return JSON.stringify([query.archived === true, query.cwd ?? null, [...query.dirs]]);
}

/** Newest first by modification time; ties by thread ID so order is total. */
function compareSummaries(a: SessionSummary, b: SessionSummary): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Above this many added or removed summaries a listing is sorted from scratch. */
const MAX_INCREMENTAL_CHANGES = 64;

/**
 * The previous sorted listing with the summaries that left removed and the new ones
 * inserted in order; a new array (snapshots may hold the old one). Undefined when too
 * much changed. `before` and `after` are per-directory parts in the same directory order.
 */
function resorted(
  sorted: readonly SessionSummary[],
  before: readonly (readonly SessionSummary[])[],
  after: readonly (readonly SessionSummary[])[],
): SessionSummary[] | undefined {
  const removed = new Set<SessionSummary>();
  const added: SessionSummary[] = [];
  for (let i = 0; i < after.length; i++) {
    const was = before[i]!;
    const now = after[i]!;
    if (was === now) continue;
    const wasSet = new Set(was);
    const nowSet = new Set(now);
    for (const s of now) if (!wasSet.has(s)) added.push(s);
    for (const s of was) if (!nowSet.has(s)) removed.add(s);
    if (added.length + removed.size > MAX_INCREMENTAL_CHANGES) return undefined;
  }
  const out = removed.size > 0 ? sorted.filter((s) => !removed.has(s)) : sorted.slice();
  for (const summary of added) {
    let lo = 0;
    let hi = out.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareSummaries(out[mid]!, summary) <= 0) lo = mid + 1;
      else hi = mid;
    }
    out.splice(lo, 0, summary);
  }
  return out;
}

/** Lists threads through the per-directory index, with continuation snapshots and counters. */
export class ThreadLister {
  /** Cumulative counters for `server/diagnostics`. */
  readonly counters: ListingCounters = createListingCounters();
  #now: () => number;
  #snapshots = new Map<string, Snapshot>();
  /** Last seen location of each thread, so lookups by ID need not rescan. */
  #locations = new Map<string, SessionSummary>();
  #indexMemos = new Map<string, IndexMemo>();
  /** The last result of each scanned directory: an identical array means nothing changed there. */
  #lastScan = new Map<string, readonly SessionSummary[]>();
  #sorted = new Map<
    string,
    { parts: readonly (readonly SessionSummary[])[]; sorted: readonly SessionSummary[] }
  >();
  #io: ScanIo | undefined;

  constructor(options: ThreadListerOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#io = options.io;
  }

  /** Summaries of every transcript in the directories (live or archived), unsorted and unfiltered. */
  async scan(dirs: readonly string[], archived: boolean): Promise<SessionSummary[]> {
    return (await this.#scanParts(dirs, archived)).flat();
  }

  /** Each directory's summaries, scanned one directory after another (bounded open files and memory). */
  async #scanParts(dirs: readonly string[], archived: boolean): Promise<(readonly SessionSummary[])[]> {
    const parts: (readonly SessionSummary[])[] = [];
    for (const dir of dirs) {
      const target = archived ? join(dir, ARCHIVE_DIR_NAME) : dir;
      const part = await scanDirectory(target, archived, this.counters, this.#indexMemos, this.#io);
      if (this.#lastScan.get(target) !== part) {
        for (const summary of part) this.#locations.set(summary.id, summary);
        this.#lastScan.set(target, part);
      }
      parts.push(part);
    }
    return parts;
  }

  /** Every summary of the directories, newest first; reuses the last sort while no directory changed. */
  async #sortedListing(dirs: readonly string[], archived: boolean): Promise<readonly SessionSummary[]> {
    const parts = await this.#scanParts(dirs, archived);
    const key = JSON.stringify([archived, dirs]);
    const cached = this.#sorted.get(key);
    if (cached && cached.parts.length === parts.length && cached.parts.every((p, i) => p === parts[i])) {
      return cached.sorted;
    }
    // Snapshots are immutable by contract (readonly, never handed out); freezing 10,000 entries is slow.
    // A few changed threads (an active one) are moved into place instead of sorting everything again.
    const sorted: readonly SessionSummary[] =
      (cached && cached.parts.length === parts.length && resorted(cached.sorted, cached.parts, parts)) ||
      parts.flat().sort(compareSummaries);
    this.#sorted.delete(key);
    this.#sorted.set(key, { parts, sorted });
    if (this.#sorted.size > MAX_SORTED_LISTINGS) this.#sorted.delete(this.#sorted.keys().next().value!);
    return sorted;
  }

  /** One page of threads, newest first. A cursor continues its snapshot without rescanning. */
  async list(query: ListQuery): Promise<ListPage> {
    this.#expire();
    const key = filterKey(query);
    let summaries: readonly SessionSummary[];
    let offset = 0;
    let snapshotId: string | undefined;
    if (query.cursor !== undefined) {
      const parsed = parseListCursor(query.cursor);
      const snapshot = this.#snapshots.get(parsed.snapshotId);
      if (!snapshot) throw new InvalidCursorError("expired or evicted");
      if (snapshot.filterKey !== key)
        throw new InvalidCursorError("filters differ from the cursor's listing");
      if (parsed.offset > snapshot.summaries.length) throw new InvalidCursorError("offset out of range");
      snapshot.lastUsed = this.#now();
      summaries = snapshot.summaries;
      offset = parsed.offset;
      snapshotId = parsed.snapshotId;
    } else {
      const sorted = await this.#sortedListing(query.dirs, query.archived === true);
      summaries = query.cwd === undefined ? sorted : sorted.filter((s) => s.cwd === query.cwd);
    }
    const limit = Math.max(1, Math.floor(query.limit ?? DEFAULT_LIST_LIMIT));
    const budget = query.maxBytes ?? MAX_RESPONSE_BYTES - ENVELOPE_RESERVE_BYTES;
    const measure = query.measure ?? ((s: SessionSummary) => Buffer.byteLength(JSON.stringify(s)) + 1);
    const threads: SessionSummary[] = [];
    let used = 0;
    let end = offset;
    while (end < summaries.length && threads.length < limit) {
      const summary = summaries[end]!;
      const size = measure(summary);
      if (threads.length > 0 && used + size > budget) break;
      used += size;
      threads.push(summary);
      end++;
    }
    if (end >= summaries.length) return { threads };
    if (snapshotId === undefined) {
      snapshotId = crypto.randomUUID();
      this.#store(snapshotId, { summaries, filterKey: key, lastUsed: this.#now() });
    }
    return { threads, nextCursor: formatListCursor(snapshotId, end) };
  }

  /**
   * Finds a thread by ID in live and archived transcripts. A location seen by an
   * earlier scan is reused while the file is still there (its metadata may be from
   * that scan); otherwise the directories are scanned through the index.
   */
  async find(dirs: readonly string[], threadId: string): Promise<SessionSummary | undefined> {
    const known = this.#locations.get(threadId);
    if (known && isFile(known.path)) return known;
    for (const archived of [false, true]) {
      const found = (await this.scan(dirs, archived)).find((s) => s.id === threadId);
      if (found) return found;
    }
    return undefined;
  }

  /** Like `find`, but throws `ThreadNotFoundError`. */
  async require(dirs: readonly string[], threadId: string): Promise<SessionSummary> {
    const found = await this.find(dirs, threadId);
    if (!found) throw new ThreadNotFoundError(threadId);
    return found;
  }

  /** Number of live continuation snapshots. */
  get snapshotCount(): number {
    this.#expire();
    return this.#snapshots.size;
  }

  #store(id: string, snapshot: Snapshot): void {
    while (this.#snapshots.size >= MAX_LIST_SNAPSHOTS) {
      let oldestId: string | undefined;
      let oldest = Number.POSITIVE_INFINITY;
      for (const [sid, s] of this.#snapshots) {
        if (s.lastUsed < oldest) {
          oldest = s.lastUsed;
          oldestId = sid;
        }
      }
      if (oldestId === undefined) break;
      this.#snapshots.delete(oldestId);
    }
    this.#snapshots.set(id, snapshot);
  }

  #expire(): void {
    const now = this.#now();
    for (const [id, s] of this.#snapshots) {
      if (now - s.lastUsed >= LIST_SNAPSHOT_TTL_MS) this.#snapshots.delete(id);
    }
  }
}

const LIST_CURSOR_PREFIX = "l1.";

function formatListCursor(snapshotId: string, offset: number): string {
  return `${LIST_CURSOR_PREFIX}${snapshotId}.${offset}`;
}

function parseListCursor(cursor: string): { snapshotId: string; offset: number } {
  const match = /^l1\.([0-9a-f-]{36})\.(\d{1,9})$/.exec(cursor);
  if (!match) throw new InvalidCursorError("malformed");
  return { snapshotId: match[1]!, offset: Number(match[2]) };
}
