/**
 * The per-directory listing cache `.thread-index.json`: what a cold scan learned
 * about each transcript, keyed by file name and validated by size, mtime and inode.
 */
import { readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isSessionWorktree, type SessionWorktree } from "./entries.ts";
import { MAX_TITLE_CHARS } from "./transcript-scan.ts";

/** File name of the listing cache inside each transcript directory. */
export const THREAD_INDEX_FILE = ".thread-index.json";
/** An index larger than this is ignored and rebuilt. */
export const MAX_INDEX_BYTES = 16 * 1024 * 1024;
/** 2: records count messages (`messageCount`); an older index is rebuilt once. */
const INDEX_VERSION = 2;

/** What the index remembers about one transcript. */
export interface IndexRecord {
  size: number;
  mtimeMs: number;
  ino: number;
  /** True for a file that is not a session transcript (kept so warm listings skip it without opening). */
  invalid?: boolean;
  id?: string;
  cwd?: string;
  createdAt?: string;
  /** Session name or first user text, bounded. */
  title?: string;
  /** The first user text, bounded (kept apart from the name so a cleared name falls back to it). */
  firstUserText?: string;
  name?: string;
  /** Message entries in the file. */
  messageCount?: number;
  parentSession?: string;
  forkedFromId?: string;
  /** The header's worktree. */
  worktree?: SessionWorktree;
  /** The fork origin was looked up (found or not), so it is never looked up again for this version of the file. */
  forkResolved?: boolean;
}

/** An index as loaded, plus why it had to be rebuilt, if it did. */
export interface LoadedIndex {
  records: Map<string, IndexRecord>;
  rebuildReason: "missing" | "corrupt" | "invalid" | "oversized" | undefined;
}

const STRING_FIELDS = ["id", "cwd", "createdAt", "parentSession", "forkedFromId"] as const;
/** Fields that must stay bounded: an index never carries whole messages into a listing. */
const TITLE_FIELDS = ["title", "firstUserText", "name"] as const;

function isRecord(value: unknown): value is IndexRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const r = value as Record<string, unknown>;
  if (typeof r.size !== "number" || typeof r.mtimeMs !== "number" || typeof r.ino !== "number") return false;
  for (const key of STRING_FIELDS) if (r[key] !== undefined && typeof r[key] !== "string") return false;
  for (const key of TITLE_FIELDS) {
    const text = r[key];
    if (text !== undefined && (typeof text !== "string" || text.length > MAX_TITLE_CHARS)) return false;
  }
  if (r.worktree !== undefined && !isSessionWorktree(r.worktree)) return false;
  if (r.invalid !== undefined && typeof r.invalid !== "boolean") return false;
  if (r.messageCount !== undefined && typeof r.messageCount !== "number") return false;
  if (r.forkResolved !== undefined && typeof r.forkResolved !== "boolean") return false;
  // A transcript's record names its thread; only a non-transcript's record may lack an ID.
  return r.invalid === true || typeof r.id === "string";
}

/** Loads a directory's index; a missing, corrupt, invalid or oversized one yields an empty map and a reason. */
export function loadThreadIndex(dir: string): LoadedIndex {
  const path = join(dir, THREAD_INDEX_FILE);
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return { records: new Map(), rebuildReason: "missing" };
  }
  if (size > MAX_INDEX_BYTES) return { records: new Map(), rebuildReason: "oversized" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return { records: new Map(), rebuildReason: "corrupt" };
  }
  const doc = parsed as { version?: unknown; files?: unknown };
  if (
    typeof doc !== "object" ||
    doc === null ||
    doc.version !== INDEX_VERSION ||
    typeof doc.files !== "object" ||
    doc.files === null ||
    Array.isArray(doc.files)
  ) {
    return { records: new Map(), rebuildReason: "invalid" };
  }
  const records = new Map<string, IndexRecord>();
  for (const [name, value] of Object.entries(doc.files as Record<string, unknown>)) {
    if (!isRecord(value)) return { records: new Map(), rebuildReason: "invalid" };
    records.set(name, value);
  }
  return { records, rebuildReason: undefined };
}

/** Writes the index atomically (temp file, then rename). Returns false instead of throwing: the cache is best effort. */
export function saveThreadIndex(dir: string, records: Map<string, IndexRecord>): boolean {
  const path = join(dir, THREAD_INDEX_FILE);
  const temp = `${path}.${process.pid}.${crypto.randomUUID()}.tmp`;
  const files: Record<string, IndexRecord> = {};
  for (const [name, record] of records) files[name] = record;
  try {
    const text = JSON.stringify({ version: INDEX_VERSION, files });
    if (Buffer.byteLength(text) > MAX_INDEX_BYTES) return false;
    writeFileSync(temp, text, { mode: 0o644 });
    renameSync(temp, path);
    return true;
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // The temp file may never have been created.
    }
    return false;
  }
}
