/**
 * Raw JSON file access: one read yields the bytes, their version hash and the parse,
 * so a caller never pairs a fresh version with stale content. Writes are atomic
 * (temp file + rename) so readers that take no lock never see a torn file.
 */
import { constants } from "node:fs";
import { chmod, mkdir, open, rename, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { ParseError } from "jsonc-parser";
import { isErrnoCode, storageFailure } from "./errors.ts";
import { randomHex } from "./random-hex.ts";
import type { ConfigWarning } from "./warning.ts";

/** Version reported for a file that is absent or was not read. */
export const NO_VERSION = "none";

/** One read of a file: its raw text (null when absent) and that text's version. */
export interface RawFile {
  path: string;
  raw: string | null;
  version: string;
}

/**
 * SHA-256 (hex) of raw file contents. Bun's native hasher, not `node:crypto`: loading
 * that module costs a server ~5 ms at start, for a hash of a few hundred bytes.
 */
export function contentVersion(raw: string): string {
  return new Bun.CryptoHasher("sha256").update(raw, "utf8").digest("hex");
}

/** Reads a file once; absent -> `raw: null, version: "none"`; other failures throw `internal`. */
export async function readRawFile(path: string): Promise<RawFile> {
  let raw: string | null;
  try {
    raw = await readRegularFile(path);
  } catch (error) {
    throw storageFailure(`Cannot read ${path}`, error);
  }
  return raw === null
    ? { path, raw: null, version: NO_VERSION }
    : { path, raw, version: contentVersion(raw) };
}

/**
 * Reads a regular file as UTF-8, or null when it does not exist. Anything else (a FIFO,
 * a device such as /dev/zero, a directory) throws at once with `code` `EISDIR` or
 * `ENOTREGULAR`, never blocking: project folders are read before anyone trusts them, and
 * a FIFO or an endless device there must not hang or exhaust the server. The check is
 * made on the opened descriptor, so the file cannot be swapped between check and read.
 */
export async function readRegularFile(path: string): Promise<string | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if (isErrnoCode(error, "ENOENT")) return null;
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      const code = info.isDirectory() ? "EISDIR" : "ENOTREGULAR";
      throw Object.assign(new Error(`${path} is not a regular file`), { code });
    }
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

/** Where and why a JSON text failed to parse. */
export interface JsonParseFailure {
  message: string;
  /** One-based, when the position is known. */
  line?: number;
  /** One-based, when the position is known. */
  column?: number;
}

/** The outcome of parsing a JSON object file. */
export type JsonObjectParse =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; failure: JsonParseFailure };

/** Parses strict JSON whose top level must be an object; failures carry one-based line/column where known. */
export function parseJsonObject(raw: string): JsonObjectParse {
  // A UTF-8 BOM is common in files saved by Windows editors and is not an error.
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  const offsetShift = text.length === raw.length ? 0 : 1;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, failure: locateParseFailure(raw, text, offsetShift, error) };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, failure: { message: "Expected a JSON object at the top level" } };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * The object a read-modify-write starts from: `{}` for an absent file. Content that does
 * not parse as a JSON object is refused with `internal` and never replaced.
 */
export function objectToRewrite(file: RawFile): Record<string, unknown> {
  if (file.raw === null) return {};
  const parsed = parseJsonObject(file.raw);
  if (parsed.ok) return parsed.value;
  const where = describeParseLocation(parsed.failure);
  throw storageFailure(`Refusing to overwrite unparseable ${file.path}${where}: ${parsed.failure.message}`);
}

/** A parse failure as a `source: "settings"` warning carrying the path and, when known, line and column. */
export function parseFailureWarning(path: string, failure: JsonParseFailure): ConfigWarning {
  const warning: ConfigWarning = {
    source: "settings",
    path,
    message: `Cannot parse ${path}: ${failure.message}`,
  };
  if (failure.line !== undefined) warning.line = failure.line;
  if (failure.column !== undefined) warning.column = failure.column;
  return warning;
}

/** ` (line L, column C)` for an error message, or nothing when the position is unknown. */
export function describeParseLocation(failure: JsonParseFailure): string {
  return failure.line !== undefined ? ` (line ${failure.line}, column ${failure.column})` : "";
}

/**
 * jsonc-parser, loaded on the first file that fails to parse: every server start would
 * otherwise pay ~3.5 ms to load it, and a valid file never needs it. Its ES module build,
 * named by path: the bundler follows that one into the compiled binary (the UMD build's
 * internal `require`s it does not), and `require` keeps this path synchronous.
 */
function jsoncParser(): typeof import("jsonc-parser") {
  return require("jsonc-parser/lib/esm/main.js") as typeof import("jsonc-parser");
}

function locateParseFailure(raw: string, text: string, shift: number, error: unknown): JsonParseFailure {
  const fallback = error instanceof Error ? error.message : String(error);
  // JSON.parse does not say where it failed; a strict scanner pass finds the first offending offset.
  const { parse: parseJsonc, printParseErrorCode } = jsoncParser();
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return { message: fallback };
  const { line, column } = lineColumnAt(raw, first.offset + shift);
  return { message: `Invalid JSON: ${printParseErrorCode(first.error)}`, line, column };
}

/** One-based line and column (in UTF-16 code units) of an offset in a text. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/** Serializes settings the way every writer formats them. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Replaces a file's contents atomically. The temp file is created with the final
 * mode so a secret never exists world-readable, even for an instant.
 */
export async function writeFileAtomic(path: string, content: string, mode?: number): Promise<void> {
  const dir = dirname(path);
  try {
    await mkdir(dir, { recursive: true });
    const keepMode = mode ?? (await existingMode(path)) ?? 0o644;
    const temp = join(dir, `.${basename(path)}.${process.pid}.${randomHex(6)}.tmp`);
    try {
      await writeFile(temp, content, { mode: keepMode, flag: "wx" });
      // The umask may have narrowed the mode at creation; set it exactly.
      await chmod(temp, keepMode);
      await rename(temp, path);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
  } catch (error) {
    throw storageFailure(`Cannot write ${path}`, error);
  }
}

async function existingMode(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o777;
  } catch (error) {
    if (isErrnoCode(error, "ENOENT")) return undefined;
    throw error;
  }
}
