/**
 * Keeps protocol lines bounded: tool input/output, items and turns over 64 KiB inline
 * become payload references at serialization, and history pages are held to 1 MiB
 * including the response envelope. The ThreadManager returns whole values; only this
 * module decides what travels by reference.
 */

import type {
  ItemToolCallRequestApprovalParams,
  PayloadRef,
  QueueState,
  RequestId,
  ServerNotification,
  ThreadItem,
  Turn,
  Warning,
} from "@knightcode/app-server-protocol";
import {
  MAX_INLINE_VALUE_BYTES,
  MAX_LISTING_RESPONSE_BYTES,
  RESPONSE_ENVELOPE_RESERVE_BYTES,
} from "@knightcode/app-server-protocol";
import { jsonPieces } from "@knightcode/session-store";
import type { PayloadSpool } from "./payload-spool.ts";

/** Largest inline turn, item, tool input or tool output, in UTF-8 bytes of JSON. */
export const INLINE_LIMIT_BYTES = MAX_INLINE_VALUE_BYTES;
/** Largest history or list response, envelope included. */
export const RESPONSE_LIMIT_BYTES = MAX_LISTING_RESPONSE_BYTES;
/**
 * Room assumed for `{"id":…,"result":…}` when the caller does not pass the exact
 * envelope size (legacy callers of `page`/`listFit`). The server passes the measured
 * envelope of each request ({@link envelopeBytes}), so its responses are bounded exactly.
 */
export const ENVELOPE_RESERVE_BYTES = RESPONSE_ENVELOPE_RESERVE_BYTES;

const byteLength = (json: string): number => Buffer.byteLength(json, "utf8");

/**
 * Bytes a response line spends outside its result: `{"id":<id>,"result":` and `}` plus the
 * line's `\n`. `{"id":…,"result":0}` is exactly that long (the `0` stands in for the `\n`).
 */
export function envelopeBytes(id: RequestId): number {
  return byteLength(JSON.stringify({ id, result: 0 }));
}

/** Bytes of the response line `{"id":…,"result":…}\n`, exactly as a JSON-lines transport writes it. */
export function responseLineBytes(id: RequestId, result: unknown): number {
  return byteLength(JSON.stringify({ id, result })) + 1;
}

/** UTF-8 bytes `JSON.stringify` spends on the UTF-16 code unit(s) at `text[i]`, and how many units it took. */
function escapedAt(text: string, i: number): [bytes: number, units: number] {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = text.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff ? [4, 2] : [6, 1];
  }
  if (c >= 0xdc00 && c <= 0xdfff) return [6, 1];
  if (c === 0x22 || c === 0x5c) return [2, 1];
  if (c < 0x20) return [c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6, 1];
  if (c < 0x80) return [1, 1];
  return [c < 0x800 ? 2 : 3, 1];
}

/** The longest prefix of `text` whose JSON string body (quotes excluded) takes at most `maxBytes`. */
export function jsonStringPrefix(text: string, maxBytes: number): string {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const [b, units] = escapedAt(text, i);
    if (bytes + b > maxBytes) break;
    bytes += b;
    i += units;
  }
  return text.slice(0, i);
}

/** The JSON string body bytes of `text` (quotes excluded). */
const stringBytes = (text: string): number => byteLength(JSON.stringify(text)) - 2;

/** What {@link LargeValues.history} did to fit a history result. */
export interface HistoryFit<T> {
  result: T;
  /** Bytes of the response line, envelope and newline included. */
  bytes: number;
  /** Whether the result is within the response limit. */
  fits: boolean;
  /** The queue as it was before its texts were shortened, when they were. */
  shortenedQueue?: QueueState;
}

function isRef(value: unknown): value is PayloadRef {
  return typeof value === "object" && value !== null && (value as { type?: unknown }).type === "payloadRef";
}

/** Replaces oversized values by references to spool files. */
export class LargeValues {
  constructor(
    private readonly spool: PayloadSpool,
    private readonly inlineLimit = INLINE_LIMIT_BYTES,
    private readonly responseLimit = RESPONSE_LIMIT_BYTES,
  ) {}

  /**
   * A reference to a spool file holding the JSON of `value` when that JSON takes more
   * than the inline limit, else undefined. The JSON is measured and written in pieces:
   * a 50 MiB reply is not serialized into one more 50 MiB string to be spooled.
   */
  private spoolIfOver(value: unknown): PayloadRef | undefined {
    const pieces = jsonPieces(value);
    const head: string[] = [];
    let bytes = 0;
    for (let next = pieces.next(); !next.done; next = pieces.next()) {
      head.push(next.value);
      bytes += byteLength(next.value);
      if (bytes > this.inlineLimit) return this.spool.putPieces(concatPieces(head, pieces));
    }
    return undefined;
  }

  /** An item with oversized tool input/output referenced, or a reference to the whole item. */
  item(item: ThreadItem | PayloadRef): ThreadItem | PayloadRef {
    if (isRef(item)) return item;
    let shaped = item;
    if (item.type === "toolCall") {
      const copy = { ...item };
      if (copy.input !== undefined) {
        const ref = this.spoolIfOver(copy.input);
        if (ref !== undefined) {
          copy.inputRef = ref;
          delete copy.input;
        }
      }
      if (copy.output !== undefined && byteLength(copy.output) > this.inlineLimit) {
        copy.outputRef = this.spool.put(copy.output);
        delete copy.output;
      }
      shaped = copy;
    }
    return this.spoolIfOver(shaped) ?? shaped;
  }

  /** A turn with its items shaped, or a reference to the whole turn when still too large. */
  turn(turn: Turn | PayloadRef): Turn | PayloadRef {
    if (isRef(turn)) return turn;
    const shaped: Turn =
      turn.items === undefined ? turn : { ...turn, items: turn.items.map((i) => this.item(i)) };
    return this.spoolIfOver(shaped) ?? shaped;
  }

  /**
   * A history page held to the response limit: turns are shaped one by one, then the
   * largest inline turns become references until the whole result fits. `envelope` is
   * the exact envelope of the response ({@link envelopeBytes}); without it an 8 KiB
   * reserve is assumed. {@link history} also shortens what is not a turn.
   */
  page<T extends { turns: (Turn | PayloadRef)[]; runningTurn?: Turn }>(result: T, envelope?: number): T {
    return this.shapePage(result, this.responseLimit - (envelope ?? ENVELOPE_RESERVE_BYTES)).shaped;
  }

  private shapePage<T extends { turns: (Turn | PayloadRef)[]; runningTurn?: Turn }>(
    result: T,
    budget: number,
  ): { shaped: T; total: number } {
    const turns = result.turns.map((t) => this.turn(t));
    const shaped: T = { ...result, turns };
    if (result.runningTurn !== undefined) {
      const running = this.turn(result.runningTurn);
      // a running turn too large to inline is sent as a summary; its items follow live
      shaped.runningTurn = isRef(running) ? { ...result.runningTurn, items: [] } : running;
    }
    return { shaped, total: this.referenceLargestTurns(shaped, budget) };
  }

  /**
   * Turns the largest inline turns of `shaped.turns` into references until the result
   * takes at most `budget` bytes; returns the result's bytes afterwards. Exact: replacing
   * one element of a JSON array changes the array's text by the difference of the two.
   */
  private referenceLargestTurns(shaped: { turns: (Turn | PayloadRef)[] }, budget: number): number {
    const turns = shaped.turns;
    let total = byteLength(JSON.stringify(shaped));
    if (total <= budget) return total;
    const sizes = turns.map((t, i) => ({ i, size: isRef(t) ? 0 : byteLength(JSON.stringify(t)) }));
    sizes.sort((a, b) => b.size - a.size);
    for (const { i, size } of sizes) {
      if (total <= budget || size === 0) break;
      const ref = this.spool.put(JSON.stringify(turns[i]));
      turns[i] = ref;
      total -= size - byteLength(JSON.stringify(ref));
    }
    return total;
  }

  /**
   * A history result (`thread/read`, `thread/resume`) held to the response limit exactly,
   * for a response whose envelope takes `envelope` bytes ({@link envelopeBytes}). In order,
   * until the line fits: turns over 64 KiB and then the largest inline turns become
   * references; queued input texts are shortened, largest first, with `queueWarning`
   * added to `warnings` (the caller sends the full queue right after the response as
   * `turn/queue/updated`); the running turn loses its items (they follow live). `fits` is false when even that is too large, which only
   * an enormous request id causes: the caller refuses the request.
   */
  history<
    T extends { turns: (Turn | PayloadRef)[]; runningTurn?: Turn; queue?: QueueState; warnings?: Warning[] },
  >(result: T, envelope: number, queueWarning?: Warning): HistoryFit<T> {
    const budget = this.responseLimit - envelope;
    const page = this.shapePage(result, budget);
    const shaped = page.shaped;
    let total = page.total;
    let shortenedQueue: QueueState | undefined;
    if (total > budget && shaped.queue !== undefined) {
      const warnings = shaped.warnings;
      // the warning saying so travels in the same line, so it is counted before cutting
      const warned = queueWarning !== undefined && warnings !== undefined;
      const extra = warned ? byteLength(JSON.stringify(queueWarning)) + (warnings.length > 0 ? 1 : 0) : 0;
      const queue = shortenQueue(shaped.queue, total + extra - budget);
      if (queue !== undefined) {
        shortenedQueue = shaped.queue;
        shaped.queue = queue;
        if (warned) shaped.warnings = [...warnings, queueWarning];
        total = byteLength(JSON.stringify(shaped));
      }
    }
    if (total > budget && shaped.runningTurn?.items !== undefined && shaped.runningTurn.items.length > 0) {
      shaped.runningTurn = { ...shaped.runningTurn, items: [] };
      total = byteLength(JSON.stringify(shaped));
    }
    return {
      result: shaped,
      bytes: total + envelope,
      fits: total <= budget,
      ...(shortenedQueue === undefined ? {} : { shortenedQueue }),
    };
  }

  /**
   * How many of `rows` fit in one response under the limit, or undefined when all fit.
   * `outside` is the exact number of bytes the response line spends outside the rows'
   * array (envelope, other fields); then the count may be 0. Without it an 8 KiB reserve
   * is assumed and at least one row is returned.
   * A listing over the limit is fetched again with that many rows, so its cursor stays
   * the manager's own and no row is lost.
   */
  listFit(rows: readonly unknown[], outside?: number): number | undefined {
    const budget = this.responseLimit - (outside ?? ENVELOPE_RESERVE_BYTES);
    // `[` and `]`, then each row and its separating comma (one comma fewer than rows)
    let total = outside === undefined ? 2 : 1;
    for (let i = 0; i < rows.length; i++) {
      total += byteLength(JSON.stringify(rows[i])) + 1;
      if (total > budget) return outside === undefined ? Math.max(1, i) : i;
    }
    return undefined;
  }

  /**
   * A listing result (`thread/list`) held to the response limit exactly: `fetch(limit)`
   * asks the manager again for fewer rows (so the cursor stays the manager's own) until
   * the response line, envelope included, fits. `undefined` when not even one row (or
   * an empty listing) fits, which only an enormous request id causes.
   */
  async list<T extends { threads: unknown[]; nextCursor?: string }>(
    first: T,
    envelope: number,
    fetch: (limit: number) => Promise<T>,
  ): Promise<T | undefined> {
    let result = first;
    // each round counts the fields around the rows as they are (a new nextCursor included)
    for (let round = 0; round < 8; round++) {
      const outside = envelope + byteLength(JSON.stringify({ ...result, threads: [] })) - 2;
      const fit = this.listFit(result.threads, outside);
      if (fit === undefined) return outside + 2 <= this.responseLimit ? result : undefined;
      if (fit === 0) return undefined;
      result = await fetch(fit);
    }
    return undefined;
  }

  /** Tool input and preview diff of an approval request, by reference when oversized. */
  approval(params: ItemToolCallRequestApprovalParams): ItemToolCallRequestApprovalParams {
    let shaped = params;
    const preview = params.preview;
    if (
      preview?.type === "fileChange" &&
      preview.diff !== undefined &&
      byteLength(preview.diff) > this.inlineLimit
    ) {
      const { diff, ...rest } = preview;
      shaped = { ...shaped, preview: { ...rest, diffRef: this.spool.put(diff) } };
    }
    if (shaped.input === undefined) return shaped;
    const inputRef = this.spoolIfOver(shaped.input);
    if (inputRef === undefined) return shaped;
    const { input: _input, ...rest } = shaped;
    return { ...rest, inputRef };
  }

  /** A notification with its turn or item shaped; other notifications pass unchanged. */
  notification(notification: ServerNotification): ServerNotification {
    switch (notification.method) {
      case "item/started":
      case "item/completed":
        return {
          ...notification,
          params: { ...notification.params, item: this.item(notification.params.item) },
        };
      case "turn/started":
      case "turn/completed":
      case "thread/turn/completed": {
        const turn = this.turn(notification.params.turn);
        // these notifications require an inline turn: keep the summary, drop its items
        const inline = isRef(turn) ? summary(notification.params.turn) : turn;
        return { ...notification, params: { ...notification.params, turn: inline } } as ServerNotification;
      }
      default:
        return notification;
    }
  }
}

/** The pieces already taken from `rest`, then the others. */
function* concatPieces(taken: readonly string[], rest: Iterator<string>): Generator<string> {
  yield* taken;
  for (let next = rest.next(); !next.done; next = rest.next()) yield next.value;
}

function summary(turn: Turn): Turn {
  const { items: _items, ...rest } = turn;
  if (rest.error !== undefined && rest.error.message.length > 2000) {
    rest.error = { ...rest.error, message: rest.error.message.slice(0, 2000) };
  }
  return rest;
}

/**
 * A copy of `queue` with its largest texts cut (to a prefix) until they take at least
 * `excess` bytes fewer in JSON, or undefined when the queue has no text to cut.
 */
function shortenQueue(queue: QueueState, excess: number): QueueState | undefined {
  const steering = [...queue.steering];
  const followUp = queue.followUp.map((entry) => ({ ...entry }));
  const texts = [
    ...steering.map((text, i) => ({ text, set: (t: string) => (steering[i] = t) })),
    ...followUp.map((entry) => ({ text: entry.text, set: (t: string) => (entry.text = t) })),
  ]
    .map((entry) => ({ ...entry, size: stringBytes(entry.text) }))
    .filter((entry) => entry.size > 0)
    .sort((a, b) => b.size - a.size);
  if (texts.length === 0) return undefined;
  let left = excess;
  for (const entry of texts) {
    if (left <= 0) break;
    const cut = jsonStringPrefix(entry.text, Math.max(0, entry.size - left));
    entry.set(cut);
    left -= entry.size - stringBytes(cut);
  }
  return { steering, followUp };
}
