/**
 * Disk steps of an owned transcript beyond plain appends: whole writes, setting a
 * torn tail aside, and rewriting an old-version file in the current version.
 */
import {
  closeSync,
  constants,
  fsync,
  fsyncSync,
  ftruncateSync,
  openSync,
  realpathSync,
  renameSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./entries.ts";
import { noDamage } from "./entry-links.ts";
import { InvalidSessionError, ThreadNotFoundError } from "./errors.ts";
import { MissingHeaderError, type ParsedSession, parseSessionBytes, serializeLine } from "./format.ts";
import { jsonPieces } from "./json-pieces.ts";

/** An entry ID as the store writes it. */
export const ENTRY_ID_PATTERN = /^[0-9a-f]{8}$/;

/** Throws `RangeError` unless `id` is 8 lowercase hex chars not used by an entry in `taken`. */
export function checkNewEntryId(id: unknown, taken: { has(id: string): boolean }): asserts id is string {
  if (typeof id !== "string" || !ENTRY_ID_PATTERN.test(id)) {
    throw new RangeError(`entry id must be 8 lowercase hex chars, got ${JSON.stringify(id)}`);
  }
  if (taken.has(id)) throw new RangeError(`entry id ${id} is already used in this session`);
}

/** The real path of a transcript; `ThreadNotFoundError` when it does not exist. */
export function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new ThreadNotFoundError(path);
    throw error;
  }
}

/** Parses a transcript's bytes; `InvalidSessionError` when it has no session header. */
export function parseOrThrow(path: string, bytes: Uint8Array): ParsedSession {
  try {
    return parseSessionBytes(bytes);
  } catch (error) {
    if (error instanceof MissingHeaderError) throw new InvalidSessionError(path, error.message);
    throw error;
  }
}

/** Makes a directory's entries (a created, renamed or moved file name) durable. Best effort where unsupported. */
export function fsyncDir(dir: string): void {
  const fd = openDirectory(dir);
  if (fd === undefined) return;
  try {
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on directories; the file data itself was synced.
  } finally {
    closeSync(fd);
  }
}

/** Writes all of `data` at the file's end; a regular file takes it in one `write`. */
export function writeAll(fd: number, data: Buffer): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

/**
 * Writes all of `text` (`bytes` long in UTF-8). One `write` of the string in the common
 * case; only a short write converts the rest to bytes to finish it.
 */
export function writeAllText(fd: number, text: string, bytes: number): void {
  const written = writeSync(fd, text);
  if (written < bytes) writeAll(fd, Buffer.from(text, "utf8").subarray(written));
}

/** A line of at most this many UTF-16 units of JSON is written in one write. */
const ONE_WRITE_UNITS = 1024 * 1024;
/** Small pieces are gathered into writes of about this many units. */
const BATCH_UNITS = 64 * 1024;

/**
 * Writes `value` as one JSON line (after a `\n` when `leadingNewline`, to start on a fresh
 * line after a torn tail); returns the bytes written. A line of ordinary size is one
 * write. A huge one (a long reply) is serialized in pieces ({@link jsonPieces}) and
 * written as they come, in several writes, so it never exists as one more string the
 * size of the reply; a reader that sees it half written sees a torn last line, which
 * every reader already skips.
 */
export function writeLine(fd: number, value: unknown, leadingNewline: boolean): number {
  const pieces = jsonPieces(value);
  const head: string[] = leadingNewline ? ["\n"] : [];
  let units = head.length;
  let next = pieces.next();
  for (; !next.done && units <= ONE_WRITE_UNITS; next = pieces.next()) {
    head.push(next.value);
    units += next.value.length;
  }
  if (next.done) return writeText(fd, `${head.join("")}\n`);
  const first = next.value;
  function* rest(): Generator<string> {
    yield* head;
    yield first;
    for (let more = pieces.next(); !more.done; more = pieces.next()) yield more.value;
    yield "\n";
  }
  return writePieces(fd, rest());
}

/**
 * Writes the concatenation of `pieces` as they come; returns its UTF-8 bytes. Small
 * pieces are gathered into one write; a big one (a slice of a long string) is written
 * as it is, without a copy.
 */
export function writePieces(fd: number, pieces: Iterable<string>): number {
  let bytes = 0;
  let batch: string[] = [];
  let units = 0;
  const flush = () => {
    if (batch.length > 0) bytes += writeText(fd, batch.join(""));
    batch = [];
    units = 0;
  };
  for (const piece of pieces) {
    if (piece.length >= BATCH_UNITS) {
      flush();
      bytes += writeText(fd, piece);
      continue;
    }
    batch.push(piece);
    units += piece.length;
    if (units >= BATCH_UNITS) flush();
  }
  flush();
  return bytes;
}

/** Writes all of `text`; returns its UTF-8 bytes. */
function writeText(fd: number, text: string): number {
  const bytes = Buffer.byteLength(text);
  writeAllText(fd, text, bytes);
  return bytes;
}

/** Flags of an owned transcript's writer. */
export const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND;

/**
 * Creates a transcript that must not exist yet (O_EXCL) and writes its header and any
 * initial entries (already built: IDs, parents, timestamps) in one write. Returns the
 * open writer, the parsed state of the new file, and `durable`: the file's fsync and its
 * directory's ({@link syncNewTranscript}), already running off the main thread.
 */
export function createTranscriptFile(
  realPath: string,
  header: SessionHeader,
  entries: SessionEntry[] = [],
): { fd: number; parsed: ParsedSession; durable: Promise<void> } {
  const fd = openSync(realPath, APPEND_FLAGS | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    const line = Buffer.from(serializeLine(header));
    const lines = entries.map((entry) => Buffer.from(serializeLine(entry)));
    const data = lines.length === 0 ? line : Buffer.concat([line, ...lines]);
    // Header and initial entries in one write before the one file fsync.
    writeAll(fd, data);
    const durable = syncNewTranscript(realPath);
    return { fd, parsed: unwrittenTranscript(header, entries), durable };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** A transcript of `header` and `entries` as parsing its file would give it, for one not on disk (yet). */
export function unwrittenTranscript(header: SessionHeader, entries: SessionEntry[]): ParsedSession {
  const headerBytes = Buffer.byteLength(serializeLine(header));
  const lineBytes = entries.map((entry) => Buffer.byteLength(serializeLine(entry)));
  return {
    header,
    entries,
    lineBytes,
    sourceVersion: CURRENT_SESSION_VERSION,
    headerBytes,
    validBytes: lineBytes.reduce((sum, bytes) => sum + bytes, headerBytes),
    tornTail: undefined,
    missingFinalNewline: false,
    skippedLines: 0,
    damage: noDamage(),
  };
}

/**
 * Makes a just-written file's bytes and its name durable: an fsync of the file and one of
 * its directory, both on Bun's thread pool, so the main thread goes on meanwhile. Each
 * runs on a descriptor of its own, opened here and closed when its fsync is done: the
 * writer may be closed (and its fd number reused) before then, and an fsync flushes the
 * inode whichever descriptor names it. Rejects with the file fsync's error; the
 * directory's is best effort as in {@link fsyncDir}. A rejection nobody awaits is not
 * reported as unhandled (a caller that gave up on the file has its own error to report).
 */
export function syncNewTranscript(realPath: string): Promise<void> {
  // O_WRONLY, not O_RDONLY: some platforms flush only through a descriptor open for writing.
  const file = fsyncAndClose(openSync(realPath, constants.O_WRONLY));
  const dir = openDirectory(dirname(realPath));
  const durable =
    dir === undefined
      ? file
      : Promise.all([file, fsyncAndClose(dir).catch(() => undefined)]).then(() => undefined);
  durable.catch(() => undefined);
  return durable;
}

/**
 * A durability point that does not hold the main thread: the file's fsync on Bun's thread
 * pool, on a descriptor of its own (the writer may be closed, and its number reused,
 * before the fsync is done). Where the file cannot be opened again by its path (moved
 * meanwhile), the writer is fsynced here, as `sync` does.
 */
export function fsyncInBackground(realPath: string, writer: number): Promise<void> {
  let fd: number;
  try {
    fd = openSync(realPath, constants.O_WRONLY);
  } catch {
    fsyncSync(writer);
    return Promise.resolve();
  }
  return fsyncAndClose(fd);
}

/** A directory's descriptor for fsync, or undefined where directories cannot be opened. */
function openDirectory(dir: string): number | undefined {
  try {
    return openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return undefined;
  }
}

/** fsyncs `fd` off the main thread, then closes it (whatever the fsync's outcome). */
function fsyncAndClose(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fsync(fd, (error) => {
      try {
        closeSync(fd);
      } catch {
        // Nothing was written through this descriptor; the fsync's outcome is the answer.
      }
      if (error) reject(error);
      else resolve();
    });
  });
}

/** Moves a torn last line into a sibling file (durably), then cuts it off the transcript. Returns the sibling's path. */
export function setTornTailAside(fd: number, realPath: string, parsed: ParsedSession): string {
  const saved = saveTornTail(realPath, parsed.tornTail!);
  ftruncateSync(fd, parsed.validBytes);
  fsyncSync(fd);
  return saved;
}

/** Keeps the bytes of a torn last line in a sibling file instead of destroying them. */
export function saveTornTail(realPath: string, torn: Uint8Array): string {
  for (let attempt = 0; ; attempt++) {
    const target = join(
      dirname(realPath),
      `${basename(realPath)}.torn-${Date.now()}${attempt ? `-${attempt}` : ""}`,
    );
    let fd: number;
    try {
      fd = openSync(target, "wx", 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST" && attempt < 100) continue;
      throw error;
    }
    try {
      writeAll(fd, Buffer.from(torn));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // The sibling's name must be durable before the transcript is truncated.
    fsyncDir(dirname(realPath));
    return target;
  }
}

/** Rewrites an old-version transcript in the current version atomically (temp file, fsync, rename). */
export function rewriteMigrated(realPath: string, parsed: ParsedSession): void {
  const temp = `${realPath}.migrate-${process.pid}-${Date.now()}`;
  const fd = openSync(temp, "wx", 0o644);
  try {
    const headerLine = Buffer.from(serializeLine(parsed.header));
    const chunks: Buffer[] = [headerLine];
    parsed.lineBytes = parsed.entries.map((entry) => {
      const line = Buffer.from(serializeLine(entry));
      chunks.push(line);
      return line.length;
    });
    writeAll(fd, Buffer.concat(chunks));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, realPath);
  fsyncDir(dirname(realPath));
  parsed.missingFinalNewline = false;
}
