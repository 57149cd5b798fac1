/**
 * Output limits shared by the tools: at most 2,000 lines or 50 KB reach the model. Head
 * truncation (read, grep, find, ls) keeps the start; tail truncation (bash) keeps the end,
 * where errors and summaries usually are. Both cut at line boundaries when they can.
 */

/** At most this many lines of tool output reach the model. */
export const MAX_LINES = 2000;
/** At most this many bytes of tool output reach the model. */
export const MAX_BYTES = 50 * 1024;

/** The kept text and what was cut. */
export interface Truncation {
  content: string;
  truncated: boolean;
  truncatedBy: "lines" | "bytes" | undefined;
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  /** Head mode only: the first line alone is over the byte limit, so nothing was kept. */
  firstLineTooLong: boolean;
  /** Tail mode only: the kept text starts inside a line. */
  partialFirstLine: boolean;
}

/** Limits for one truncation. */
export interface TruncationLimits {
  maxLines?: number;
  maxBytes?: number;
}

const encoder = new TextEncoder();

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  // A trailing newline ends the last line; it does not start another one.
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}

/** Keeps the first lines within the limits. */
export function truncateHead(text: string, limits: TruncationLimits = {}): Truncation {
  const maxLines = limits.maxLines ?? MAX_LINES;
  const maxBytes = limits.maxBytes ?? MAX_BYTES;
  const totalBytes = byteLength(text);
  const lines = splitLines(text);
  const base = { totalLines: lines.length, totalBytes, partialFirstLine: false };
  if (lines.length <= maxLines && totalBytes <= maxBytes) {
    return {
      ...base,
      content: text,
      truncated: false,
      truncatedBy: undefined,
      outputLines: lines.length,
      firstLineTooLong: false,
    };
  }
  const kept: string[] = [];
  let bytes = 0;
  let truncatedBy: "lines" | "bytes" = "lines";
  for (const line of lines) {
    if (kept.length >= maxLines) break;
    const size = byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      truncatedBy = "bytes";
      break;
    }
    kept.push(line);
    bytes += size;
  }
  return {
    ...base,
    content: kept.join("\n"),
    truncated: true,
    truncatedBy,
    outputLines: kept.length,
    firstLineTooLong: kept.length === 0,
  };
}

function tailBytes(line: string, maxBytes: number): string {
  const bytes = encoder.encode(line);
  let start = bytes.length - maxBytes;
  // Step forward past UTF-8 continuation bytes so the cut does not split a character.
  while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
  return new TextDecoder().decode(bytes.subarray(start));
}

/** Keeps the last lines within the limits. */
export function truncateTail(text: string, limits: TruncationLimits = {}): Truncation {
  const maxLines = limits.maxLines ?? MAX_LINES;
  const maxBytes = limits.maxBytes ?? MAX_BYTES;
  const totalBytes = byteLength(text);
  const lines = splitLines(text);
  const base = { totalLines: lines.length, totalBytes, firstLineTooLong: false };
  if (lines.length <= maxLines && totalBytes <= maxBytes) {
    return {
      ...base,
      content: text,
      truncated: false,
      truncatedBy: undefined,
      outputLines: lines.length,
      partialFirstLine: false,
    };
  }
  const kept: string[] = [];
  let bytes = 0;
  let truncatedBy: "lines" | "bytes" = "lines";
  let partialFirstLine = false;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (kept.length >= maxLines) break;
    const line = lines[i]!;
    const size = byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      truncatedBy = "bytes";
      if (kept.length === 0) {
        kept.unshift(tailBytes(line, maxBytes));
        partialFirstLine = true;
      }
      break;
    }
    kept.unshift(line);
    bytes += size;
  }
  return {
    ...base,
    content: kept.join("\n"),
    truncated: true,
    truncatedBy,
    outputLines: kept.length,
    partialFirstLine,
  };
}

/** "50 KB" style sizes for notices. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, "")} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MB`;
}
