/**
 * History pages: a branch grouped into turns by the durable markers, paged newest
 * page first with cursors anchored to the branch prefix.
 */
import type { MessageEntry, SessionEntry, TurnEndEntry, TurnStartEntry } from "./entries.ts";
import { InvalidCursorError } from "./errors.ts";

/** Most turns in one history page. */
export const MAX_HISTORY_PAGE_TURNS = 50;

/** One turn of a branch as stored: its marker entries and everything in between. */
export interface TurnGroup {
  /** The turn-start entry's ID; for unmarked (pi) transcripts, the ID of the user message opening it. */
  id: string;
  /** Position of the turn on the branch, oldest = 0. */
  index: number;
  start: TurnStartEntry | MessageEntry;
  /** The matching turn-end entry; absent for a running or interrupted turn. */
  end: TurnEndEntry | undefined;
  /** Entries from the start up to (not including) the next turn's start, in branch order. */
  entries: SessionEntry[];
  /** True when the turn was inferred from a user message because no marker opened it. */
  legacy: boolean;
}

/** A branch split into turns and the entries before the first one. */
export interface BranchTurns {
  preamble: SessionEntry[];
  turns: TurnGroup[];
}

/**
 * Groups a root -> leaf path into turns. A `turn_start` opens a turn; outside an open
 * marked turn, a user message opens an inferred one, so pi transcripts page too.
 */
export function groupTurns(path: readonly SessionEntry[]): BranchTurns {
  const preamble: SessionEntry[] = [];
  const turns: TurnGroup[] = [];
  let current: TurnGroup | undefined;
  const open = (start: TurnStartEntry | MessageEntry, legacy: boolean) => {
    current = { id: start.id, index: turns.length, start, end: undefined, entries: [start], legacy };
    turns.push(current);
  };
  for (const entry of path) {
    if (entry.type === "turn_start") {
      open(entry, false);
    } else if (
      entry.type === "message" &&
      entry.message.role === "user" &&
      (current === undefined || current.legacy || current.end !== undefined)
    ) {
      open(entry, true);
    } else if (current === undefined) {
      preamble.push(entry);
    } else {
      if (entry.type === "turn_end" && !current.legacy && entry.turnId === current.id && !current.end) {
        current.end = entry;
      }
      current.entries.push(entry);
    }
  }
  return { preamble, turns };
}

/** Input of `historyPage`. */
export interface HistoryPageQuery {
  /** The thread the cursor must belong to. */
  threadId: string;
  /** Root -> leaf entries of the branch being read. */
  path: readonly SessionEntry[];
  /** `groupTurns(path)` when the caller already has it (paging repeatedly without regrouping). */
  grouped?: BranchTurns;
  cursor?: string;
  /** At most `MAX_HISTORY_PAGE_TURNS`. */
  limit?: number;
  /** Byte budget for the page's turns as the caller will send them (after payload references). */
  maxBytes?: number;
  /** Size of one turn as the caller will send it; defaults to the JSON size of its entries. */
  measure?: (turn: TurnGroup) => number;
}

/** One page: turns in chronological order, and the cursor of the older page. */
export interface HistoryPage {
  turns: TurnGroup[];
  /** Entries before the first turn; present only on the page that reaches the oldest turn. */
  preamble?: SessionEntry[];
  nextCursor?: string;
  /** Number of turns on the branch when the page was made. */
  totalTurns: number;
}

interface HistoryCursor {
  /** Thread ID. */
  t: string;
  /** Turns older than the previous page (exclusive end of the next page). */
  n: number;
  /** ID of the turn at index `n`, the anchor into the branch prefix. */
  a: string;
}

function encodeCursor(cursor: HistoryCursor): string {
  return `h1.${Buffer.from(JSON.stringify(cursor)).toString("base64url")}`;
}

function decodeCursor(text: string): HistoryCursor {
  if (!text.startsWith("h1.")) throw new InvalidCursorError("malformed");
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text.slice(3), "base64url").toString("utf8"));
  } catch {
    throw new InvalidCursorError("malformed");
  }
  const c = value as Partial<HistoryCursor> | null;
  if (
    typeof c !== "object" ||
    c === null ||
    typeof c.t !== "string" ||
    typeof c.a !== "string" ||
    typeof c.n !== "number" ||
    !Number.isInteger(c.n) ||
    c.n < 1
  ) {
    throw new InvalidCursorError("malformed");
  }
  return c as HistoryCursor;
}

/** Serialized size of a turn's entries (one line each). */
export function measureTurn(turn: TurnGroup): number {
  let bytes = 0;
  for (const entry of turn.entries) bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
  return bytes;
}

/** The page of turns a cursor (or none: the newest page) selects. Pure over the path. */
export function historyPage(query: HistoryPageQuery): HistoryPage {
  const { preamble, turns } = query.grouped ?? groupTurns(query.path);
  const measure = query.measure ?? measureTurn;
  let end = turns.length;
  if (query.cursor !== undefined) {
    const cursor = decodeCursor(query.cursor);
    if (cursor.t !== query.threadId) throw new InvalidCursorError("cursor belongs to another thread");
    if (turns[cursor.n]?.id !== cursor.a) throw new InvalidCursorError("branch diverged from the cursor");
    end = cursor.n;
  }
  const limit = Math.min(
    MAX_HISTORY_PAGE_TURNS,
    Math.max(1, Math.floor(query.limit ?? MAX_HISTORY_PAGE_TURNS)),
  );
  let start = end;
  let used = 0;
  while (start > 0 && end - start < limit) {
    const candidate = turns[start - 1]!;
    if (query.maxBytes !== undefined) {
      const size = measure(candidate);
      if (start < end && used + size > query.maxBytes) break;
      used += size;
    }
    start--;
  }
  const page: HistoryPage = { turns: turns.slice(start, end), totalTurns: turns.length };
  if (start > 0) page.nextCursor = encodeCursor({ t: query.threadId, n: start, a: turns[start]!.id });
  else page.preamble = preamble;
  return page;
}
