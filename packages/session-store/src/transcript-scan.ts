/**
 * What a listing needs from one transcript, found without parsing every line: the
 * header, the latest session name, the first user text and the number of messages.
 */
import { type FileHandle, open } from "node:fs/promises";
import type { SessionHeader } from "./entries.ts";
import { parseHeaderLine } from "./format.ts";

/** Longest title kept in listings and the index. */
export const MAX_TITLE_CHARS = 200;

/** Listing facts of one transcript. */
export interface TranscriptFacts {
  header: SessionHeader;
  name: string | undefined;
  firstUserText: string | undefined;
  /** Message entries on every branch (user, assistant, tool results, shell commands, ...). */
  messageCount: number;
}

/** The start of a message entry's line: our writer and pi's both put `type` first. */
const MESSAGE_MARK = Buffer.from('{"type":"message"');
const NAME_MARK = Buffer.from('"type":"session_info"');
const USER_MARK = Buffer.from('"role":"user"');

function lineAround(buf: Buffer, at: number): [number, number] {
  const start = buf.lastIndexOf(0x0a, at) + 1;
  const nl = buf.indexOf(0x0a, at);
  return [start, nl === -1 ? buf.length : nl];
}

function parseAt(buf: Buffer, start: number, end: number): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(buf.toString("utf8", start, end));
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Collapses whitespace and cuts to `MAX_TITLE_CHARS`, so the index never holds whole messages. */
export function boundTitle(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_TITLE_CHARS ? `${flat.slice(0, MAX_TITLE_CHARS - 1)}…` : flat;
}

function userText(message: Record<string, unknown>): string | undefined {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const parts: string[] = [];
  for (const block of content) {
    if (block && typeof block === "object" && block.type === "text" && typeof block.text === "string") {
      parts.push(block.text);
    }
  }
  return parts.length > 0 ? parts.join(" ") : undefined;
}

/** The latest `session_info` at or after `from`: found, and its (bounded) name if it sets one. */
function latestName(buf: Buffer, from: number): { found: boolean; name: string | undefined } {
  // JSON escapes quotes inside strings, so the marker only matches a real entry's own field.
  let at = buf.lastIndexOf(NAME_MARK);
  while (at >= from) {
    const [start, end] = lineAround(buf, at);
    const entry = parseAt(buf, start, end);
    if (entry && entry.type === "session_info") {
      const name =
        typeof entry.name === "string" && entry.name.trim() !== "" ? boundTitle(entry.name) : undefined;
      return { found: true, name };
    }
    at = start > 0 ? buf.lastIndexOf(NAME_MARK, start - 1) : -1;
  }
  return { found: false, name: undefined };
}

/** The first non-empty user message text at or after `from`, bounded. */
function firstUserText(buf: Buffer, from: number): string | undefined {
  let at = buf.indexOf(USER_MARK, from);
  while (at !== -1) {
    const [start, end] = lineAround(buf, at);
    const entry = parseAt(buf, start, end);
    const message = entry?.message as Record<string, unknown> | undefined;
    if (entry?.type === "message" && message?.role === "user") {
      const text = userText(message);
      if (text !== undefined && text.trim() !== "") return boundTitle(text);
    }
    at = buf.indexOf(USER_MARK, end);
  }
  return undefined;
}

/** Lines at or after `from` (a line start) that are message entries. */
function countMessages(buf: Buffer, from: number): number {
  let count = 0;
  for (let at = buf.indexOf(MESSAGE_MARK, from); at !== -1; at = buf.indexOf(MESSAGE_MARK, at + 1)) {
    if (at === from || buf[at - 1] === 0x0a) count++;
  }
  return count;
}

/** Extracts listing facts from a whole transcript's bytes; undefined when it is not a session file. */
export function scanTranscript(buf: Buffer): TranscriptFacts | undefined {
  const firstNl = buf.indexOf(0x0a);
  const header = parseHeaderLine(buf.toString("utf8", 0, firstNl === -1 ? buf.length : firstNl));
  if (!header) return undefined;
  const bodyStart = firstNl === -1 ? buf.length : firstNl + 1;
  return {
    header,
    name: latestName(buf, bodyStart).name,
    firstUserText: firstUserText(buf, bodyStart),
    messageCount: countMessages(buf, bodyStart),
  };
}

/** Facts found in bytes appended to a known transcript (whole lines only). */
export interface AppendedFacts {
  /** A `session_info` entry was appended; `name` is its name (undefined clears it). */
  nameChanged: boolean;
  name: string | undefined;
  firstUserText: string | undefined;
  messageCount: number;
}

/** Scans only the appended tail of a transcript, for listings of files that grew. */
export function scanAppended(tail: Buffer): AppendedFacts {
  const latest = latestName(tail, 0);
  return {
    nameChanged: latest.found,
    name: latest.name,
    firstUserText: firstUserText(tail, 0),
    messageCount: countMessages(tail, 0),
  };
}

/**
 * Reads only a transcript's header (first line, at most 64 KiB); undefined when
 * unreadable or not a session. `io.open` replaces the plain read-only open (scans pass theirs).
 */
export async function readHeader(
  path: string,
  io: { open(path: string): Promise<FileHandle> } = { open: (p) => open(p, "r") },
): Promise<SessionHeader | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await io.open(path);
    const chunk = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, 0);
    return parseHeaderLine(chunk.toString("utf8", 0, bytesRead));
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
