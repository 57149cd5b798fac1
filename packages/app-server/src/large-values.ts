/**
 * Keeps protocol lines bounded: tool input/output, items and turns over 64 KiB inline
 * become payload references at serialization, and history pages are held to 1 MiB
 * including the response envelope. The ThreadManager returns whole values; only this
 * module decides what travels by reference.
 */
import type {
  ItemToolCallRequestApprovalParams,
  PayloadRef,
  ServerNotification,
  ThreadItem,
  Turn,
} from "@knightcode/app-server-protocol";
import type { PayloadSpool } from "./payload-spool.ts";

/** Largest inline turn, item, tool input or tool output, in UTF-8 bytes of JSON. */
export const INLINE_LIMIT_BYTES = 64 * 1024;
/** Largest history or list response, envelope included. */
export const RESPONSE_LIMIT_BYTES = 1024 * 1024;
/** Room kept for `{"id":…,"result":…}` and the fields around the turns. */
export const ENVELOPE_RESERVE_BYTES = 8 * 1024;

const byteLength = (json: string): number => Buffer.byteLength(json, "utf8");

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

  /** An item with oversized tool input/output referenced, or a reference to the whole item. */
  item(item: ThreadItem | PayloadRef): ThreadItem | PayloadRef {
    if (isRef(item)) return item;
    let shaped = item;
    if (item.type === "toolCall") {
      const copy = { ...item };
      if (copy.input !== undefined) {
        const json = JSON.stringify(copy.input) ?? "null";
        if (byteLength(json) > this.inlineLimit) {
          copy.inputRef = this.spool.put(json);
          delete copy.input;
        }
      }
      if (copy.output !== undefined && byteLength(copy.output) > this.inlineLimit) {
        copy.outputRef = this.spool.put(copy.output);
        delete copy.output;
      }
      shaped = copy;
    }
    const json = JSON.stringify(shaped);
    return byteLength(json) > this.inlineLimit ? this.spool.put(json) : shaped;
  }

  /** A turn with its items shaped, or a reference to the whole turn when still too large. */
  turn(turn: Turn | PayloadRef): Turn | PayloadRef {
    if (isRef(turn)) return turn;
    const shaped: Turn =
      turn.items === undefined ? turn : { ...turn, items: turn.items.map((i) => this.item(i)) };
    const json = JSON.stringify(shaped);
    return byteLength(json) > this.inlineLimit ? this.spool.put(json) : shaped;
  }

  /**
   * A history page held to the response limit: turns are shaped one by one, then the
   * largest inline turns become references until the whole result fits.
   */
  page<T extends { turns: (Turn | PayloadRef)[]; runningTurn?: Turn }>(result: T): T {
    const turns = result.turns.map((t) => this.turn(t));
    const shaped: T = { ...result, turns };
    if (result.runningTurn !== undefined) {
      const running = this.turn(result.runningTurn);
      // a running turn too large to inline is sent as a summary; its items follow live
      shaped.runningTurn = isRef(running) ? { ...result.runningTurn, items: [] } : running;
    }
    const budget = this.responseLimit - ENVELOPE_RESERVE_BYTES;
    let total = byteLength(JSON.stringify(shaped));
    if (total <= budget) return shaped;
    const sizes = turns.map((t, i) => ({ i, size: isRef(t) ? 0 : byteLength(JSON.stringify(t)) }));
    sizes.sort((a, b) => b.size - a.size);
    for (const { i, size } of sizes) {
      if (total <= budget || size === 0) break;
      const ref = this.spool.put(JSON.stringify(turns[i]));
      turns[i] = ref;
      total -= size - byteLength(JSON.stringify(ref));
    }
    return shaped;
  }

  /**
   * How many of `rows` fit in one response under the limit, or undefined when all fit.
   * A listing over the limit is fetched again with that many rows, so its cursor stays
   * the manager's own and no row is lost.
   */
  listFit(rows: readonly unknown[]): number | undefined {
    const budget = this.responseLimit - ENVELOPE_RESERVE_BYTES;
    let total = 2;
    for (let i = 0; i < rows.length; i++) {
      total += byteLength(JSON.stringify(rows[i])) + 1;
      if (total > budget) return Math.max(1, i);
    }
    return undefined;
  }

  /** Tool input of an approval request, by reference when oversized. */
  approval(params: ItemToolCallRequestApprovalParams): ItemToolCallRequestApprovalParams {
    if (params.input === undefined) return params;
    const json = JSON.stringify(params.input) ?? "null";
    if (byteLength(json) <= this.inlineLimit) return params;
    const { input: _input, ...rest } = params;
    return { ...rest, inputRef: this.spool.put(json) };
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

function summary(turn: Turn): Turn {
  const { items: _items, ...rest } = turn;
  if (rest.error !== undefined && rest.error.message.length > 2000) {
    rest.error = { ...rest.error, message: rest.error.message.slice(0, 2000) };
  }
  return rest;
}
