/**
 * How many bytes a history response may spend on turns. The app server (`LargeValues`)
 * sends each item and turn inline up to 64 KiB and by payload reference above that, and
 * holds a history response to 1 MiB minus an 8 KiB envelope reserve by turning whole
 * turns into references when the page is still too large. The manager sizes pages the
 * same way beforehand, so a page never needs more than the server can send inline and
 * no turn is referenced only to make the page fit.
 */
import {
  MAX_INLINE_VALUE_BYTES,
  MAX_LISTING_RESPONSE_BYTES,
  RESPONSE_ENVELOPE_RESERVE_BYTES,
  type ThreadItem,
} from "@knightcode/app-server-protocol";
import type { Turn } from "../shapes.ts";

/** Room the app server keeps for `{"id":…,"result":…}`: the protocol's shared reserve. */
export { RESPONSE_ENVELOPE_RESERVE_BYTES };

/** The largest payload reference (its ID is at most 128 characters). */
const LARGEST_REF = { type: "payloadRef", id: "x".repeat(128), byteLength: Number.MAX_SAFE_INTEGER };

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "null", "utf8");

/** An item as the server would inline it, references standing in at their largest size. */
function shapedItem(item: ThreadItem): unknown {
  let shaped: unknown = item;
  if (item.type === "toolCall") {
    const copy: Record<string, unknown> = { ...item };
    if (copy.input !== undefined && bytesOf(copy.input) > MAX_INLINE_VALUE_BYTES) {
      copy.inputRef = LARGEST_REF;
      delete copy.input;
    }
    if (typeof copy.output === "string" && Buffer.byteLength(copy.output) > MAX_INLINE_VALUE_BYTES) {
      copy.outputRef = LARGEST_REF;
      delete copy.output;
    }
    shaped = copy;
  }
  return bytesOf(shaped) > MAX_INLINE_VALUE_BYTES ? LARGEST_REF : shaped;
}

function shapedTurnBytes(turn: Turn): number {
  return bytesOf(turn.items === undefined ? turn : { ...turn, items: turn.items.map(shapedItem) });
}

/** Bytes one turn takes in a response's `turns` array (plus its separating comma). */
export function sentTurnBytes(turn: Turn): number {
  const size = shapedTurnBytes(turn);
  return (size > MAX_INLINE_VALUE_BYTES ? bytesOf(LARGEST_REF) : size) + 1;
}

/** A running-turn snapshot as the server sends it: inline up to 64 KiB, else with its items left out. */
export function sentRunningTurnBytes(turn: Turn): number {
  const size = shapedTurnBytes(turn);
  return size <= MAX_INLINE_VALUE_BYTES ? size : bytesOf({ ...turn, items: [] });
}

/** Room for `"turns":[]`, `"nextCursor":"…"` and `"runningTurn":` around the measured values. */
export const PAGE_FIELDS_RESERVE_BYTES = 512;

/** Bytes left for turns once the other fields of a history response (`rest`) are counted. */
export function turnBudget(rest: Record<string, unknown>, extraBytes = 0): number {
  return MAX_LISTING_RESPONSE_BYTES - RESPONSE_ENVELOPE_RESERVE_BYTES - bytesOf(rest) - extraBytes;
}
