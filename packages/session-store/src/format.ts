/**
 * Reading and writing session lines: byte-level parsing that tolerates a torn last
 * line, pi's v1 -> v2 -> v3 migrations (in memory only), and ID generation.
 */
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./entries.ts";
import { countDamage, linkEntries, noDamage, type RawEntryLine, type SessionDamage } from "./entry-links.ts";

const NEWLINE = 0x0a;

/** A transcript parsed into memory, already migrated to the current version. */
export interface ParsedSession {
  header: SessionHeader;
  entries: SessionEntry[];
  /** UTF-8 size of each entry's line including its newline, parallel to `entries`. */
  lineBytes: number[];
  /** Header version found on disk (1 when absent). */
  sourceVersion: number;
  /** Byte length of the header line including its newline. */
  headerBytes: number;
  /** Bytes of the file that hold complete lines (everything before a torn tail). */
  validBytes: number;
  /** The unterminated, unparsable last line a crash left behind, if any. */
  tornTail: Uint8Array | undefined;
  /** The last line parsed but lacks its newline; a writer must add one before appending. */
  missingFinalNewline: boolean;
  /** Complete lines that were not usable entries (skipped, counted); `damage.skipped.count`. */
  skippedLines: number;
  /** What was skipped or repaired, with the first file line of each kind. */
  damage: SessionDamage;
}

/** Raised by `parseSessionBytes` when the first line is not a session header. */
export class MissingHeaderError extends Error {}

/** Parses a whole transcript; entries keep file order. Throws `MissingHeaderError` without a header. */
export function parseSessionBytes(bytes: Uint8Array): ParsedSession {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const raw: Record<string, unknown>[] = [];
  const rawBytes: number[] = [];
  const rawLines: number[] = [];
  const damage = noDamage();
  let tornTail: Uint8Array | undefined;
  let missingFinalNewline = false;
  let validBytes = 0;
  let pos = 0;
  let lineNumber = 0;
  while (pos < buf.length) {
    lineNumber++;
    const nl = buf.indexOf(NEWLINE, pos);
    const end = nl === -1 ? buf.length : nl;
    const next = nl === -1 ? buf.length : nl + 1;
    const value = end > pos ? parseLine(buf, pos, end) : undefined;
    if (nl === -1) {
      // Only the last segment can lack a newline; a crash mid-write leaves exactly this.
      if (value === undefined || (raw.length > 0 && !isEntryShape(value, raw))) {
        tornTail = buf.subarray(pos, end);
        break;
      }
      missingFinalNewline = true;
    }
    validBytes = next;
    if (value === undefined) {
      if (end > pos && !isBlank(buf, pos, end)) countDamage(damage.skipped, lineNumber);
    } else {
      raw.push(value);
      rawBytes.push(next - pos);
      rawLines.push(lineNumber);
    }
    pos = next;
  }
  const first = raw[0];
  if (first?.type !== "session" || typeof first.id !== "string") {
    throw new MissingHeaderError(first ? "first line is not a session header" : "empty file");
  }
  const header = first as unknown as SessionHeader;
  const sourceVersion = typeof header.version === "number" ? header.version : 1;
  const migrated = migrateLines(raw, sourceVersion);
  const lines: RawEntryLine[] = [];
  for (let i = 1; i < migrated.length; i++) {
    lines.push({ value: migrated[i]!, line: rawLines[i]!, bytes: rawBytes[i]! });
  }
  const { entries, lineBytes } = linkEntries(lines, damage);
  return {
    header: migrated[0] as unknown as SessionHeader,
    entries,
    lineBytes,
    sourceVersion,
    headerBytes: rawBytes[0]!,
    validBytes,
    tornTail,
    missingFinalNewline,
    skippedLines: damage.skipped.count,
    damage,
  };
}

function parseLine(buf: Buffer, start: number, end: number): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(buf.toString("utf8", start, end));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/** A complete-looking last line without a newline is only kept when it is a plausible entry. */
function isEntryShape(value: Record<string, unknown>, raw: Record<string, unknown>[]): boolean {
  const header = raw[0];
  const version = header && typeof header.version === "number" ? header.version : 1;
  if (typeof value.type !== "string" || value.type === "session") return false;
  return version < 2 || typeof value.id === "string";
}

/**
 * Brings raw lines (header first) to the current version in place. v1 files are
 * linear without IDs: IDs are derived from the line position so repeated read-only
 * opens give the same IDs (turn IDs and cursors depend on them).
 */
function migrateLines(raw: Record<string, unknown>[], version: number): Record<string, unknown>[] {
  const header = raw[0]!;
  if (version < 2) {
    if (typeof header.branchedFrom === "string" && header.parentSession === undefined) {
      header.parentSession = header.branchedFrom;
    }
    delete header.branchedFrom;
    let prev: string | null = null;
    for (let i = 1; i < raw.length; i++) {
      const line = raw[i]!;
      const id = i.toString(16).padStart(8, "0");
      line.id = id;
      line.parentId = prev;
      prev = id;
    }
    for (let i = 1; i < raw.length; i++) {
      const line = raw[i]!;
      if (line.type === "compaction" && typeof line.firstKeptEntryIndex === "number") {
        // The index counts lines of the file with the header at 0, as pi wrote it.
        const target = raw[line.firstKeptEntryIndex];
        if (target && target !== header) line.firstKeptEntryId = target.id;
        delete line.firstKeptEntryIndex;
      }
    }
  }
  if (version < 3) {
    for (let i = 1; i < raw.length; i++) {
      const line = raw[i]!;
      const message = line.message as Record<string, unknown> | undefined;
      if (line.type === "message" && message && message.role === "hookMessage") message.role = "custom";
    }
  }
  header.version = Math.max(version, CURRENT_SESSION_VERSION);
  return raw;
}

/** One session line as written: compact JSON plus newline. */
export function serializeLine(line: SessionHeader | SessionEntry): string {
  return `${JSON.stringify(line)}\n`;
}

const HEX = "0123456789abcdef";

/** A fresh 8-hex-char entry ID not in `taken`. */
export function createEntryId(taken: { has(id: string): boolean }): string {
  const bytes = new Uint8Array(4);
  for (;;) {
    crypto.getRandomValues(bytes);
    let id = "";
    for (const b of bytes) id += HEX[b >> 4]! + HEX[b & 15]!;
    if (!taken.has(id)) return id;
  }
}

/** A new time-ordered session (thread) ID. */
export function createSessionId(): string {
  return Bun.randomUUIDv7();
}

/** Reads only the first line of a transcript's bytes as a header; undefined when it is not one. */
export function parseHeaderLine(text: string): SessionHeader | undefined {
  const nl = text.indexOf("\n");
  const line = nl === -1 ? text : text.slice(0, nl);
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (value && value.type === "session" && typeof value.id === "string") {
      if (typeof value.branchedFrom === "string" && value.parentSession === undefined) {
        value.parentSession = value.branchedFrom;
      }
      return value as unknown as SessionHeader;
    }
  } catch {
    // Not a header: the caller treats the file as foreign.
  }
  return undefined;
}
