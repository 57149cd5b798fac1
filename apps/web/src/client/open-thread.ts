/**
 * The open thread's live side: loading its history (`thread/resume`, older pages with
 * `thread/read`) and applying its notifications in arrival order (items with payload
 * references are resolved first, so a later delta never overtakes them).
 *
 * It keeps its place in the thread's stream: the `seq` of the last notification applied.
 * After a dropped socket it resumes with that place (`replay`), and the server sends the
 * missed notifications again before its answer, or says they are gone and the answer's
 * snapshot is the state. A notification at or before the place is never applied twice.
 */
import {
  type AppServerClient,
  isPayloadRef,
  type PayloadRef,
  type StreamPosition,
  type Thread,
  type Turn,
} from "@knightcode/app-server-protocol";
import type { ConversationView } from "./conversation-view.ts";
import { type Change, ThreadState, type TurnView, turnView } from "./thread-state.ts";

/** A thread notification, as the app routes it here. */
export interface ThreadNotification {
  method: string;
  params: Record<string, unknown>;
  /** Its place in the thread's stream. */
  seq?: number;
}

/** How a resume brought the page up to date. */
export type ResumeOutcome = { kind: "snapshot" } | { kind: "replayed"; missed: number };

async function resolvedTurn(client: AppServerClient, turn: Parameters<AppServerClient["resolveTurn"]>[0]) {
  const whole: Turn = await client.resolveTurn(turn);
  const items = (whole.items ?? []).filter((item) => item.type !== "payloadRef");
  return turnView(whole, items as Parameters<typeof turnView>[1]);
}

/** One open thread. */
export class OpenThread {
  readonly state: ThreadState;
  /** Notifications wait here while a resume is in flight, then apply after its snapshot. */
  private buffered: ThreadNotification[] | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** The thread's stream and the last `seq` applied from it. */
  private stream: StreamPosition | undefined;

  constructor(
    thread: Thread,
    private readonly view: ConversationView,
    private readonly onChange: () => void,
  ) {
    this.state = new ThreadState(thread);
  }

  get id(): string {
    return this.state.thread.id;
  }

  /**
   * Loads the newest page and subscribes. After a dropped socket (`reconnect`), asks for
   * the notifications missed since the last one applied instead, when it has a place.
   */
  async resume(client: AppServerClient, reconnect = false): Promise<ResumeOutcome> {
    this.buffered = [];
    const replay =
      reconnect && this.stream !== undefined
        ? { streamId: this.stream.id, afterSeq: this.stream.seq }
        : undefined;
    let outcome: ResumeOutcome = { kind: "snapshot" };
    try {
      const result = await client.request("thread/resume", {
        threadId: this.id,
        ...(replay === undefined ? {} : { replay }),
      });
      this.state.thread = result.thread;
      if (result.replay === "replayed") {
        // the missed notifications came before the answer and wait in `buffered`, queue and usage updates too
        outcome = { kind: "replayed", missed: this.buffered.length };
      } else {
        const turns = await Promise.all(result.turns.map((turn) => resolvedTurn(client, turn)));
        this.state.reset(turns, result.nextCursor);
        if (result.runningTurn !== undefined)
          this.state.upsertTurn(await resolvedTurn(client, result.runningTurn));
        this.state.queue = result.queue;
        this.state.usage = result.usage;
        // what the snapshot holds is applied; buffered notifications up to here are skipped
        this.stream = result.stream === undefined ? undefined : { ...result.stream };
      }
    } finally {
      const buffered = this.buffered;
      this.buffered = undefined;
      this.view.show(this.state);
      for (const notification of buffered ?? []) this.receive(client, notification);
      this.onChange();
    }
    return outcome;
  }

  /** Loads the next older page in front. */
  async loadOlder(client: AppServerClient): Promise<void> {
    const cursor = this.state.olderCursor;
    if (cursor === undefined) return;
    const page = await client.request("thread/read", { threadId: this.id, cursor });
    const turns = await Promise.all(page.turns.map((turn) => resolvedTurn(client, turn)));
    this.state.prepend(turns, page.nextCursor);
    this.view.redrawAll(true);
    this.onChange();
  }

  /** Takes a notification for this thread, in order. */
  receive(client: AppServerClient, notification: ThreadNotification): void {
    if (this.buffered !== undefined) {
      this.buffered.push(notification);
      return;
    }
    this.chain = this.chain
      .then(() => this.apply(client, notification))
      .catch((error: unknown) => console.error("could not apply", notification.method, error));
  }

  private async apply(client: AppServerClient, { method, params, seq }: ThreadNotification): Promise<void> {
    if (seq !== undefined && this.stream !== undefined) {
      // exactly once: a replay or a snapshot may already hold it
      if (seq <= this.stream.seq) return;
      this.stream.seq = seq;
    }
    const turnId = params.turnId as string;
    let change: Change | undefined;
    switch (method) {
      case "turn/started":
        change = this.state.upsertTurn(await resolvedTurn(client, params.turn as Turn));
        break;
      case "turn/completed":
        change = this.state.completeTurn(params.turn as Turn);
        break;
      case "item/started":
      case "item/completed": {
        const item = await client.resolveItem(params.item as Parameters<AppServerClient["resolveItem"]>[0]);
        change = this.state.putItem(turnId, item);
        break;
      }
      case "item/removed":
        change = this.state.removeItem(turnId, params.itemId as string);
        break;
      case "item/agentMessage/delta":
      case "item/reasoning/delta":
        change = this.state.appendDelta(
          turnId,
          params.itemId as string,
          method === "item/reasoning/delta" ? "reasoning" : "agentMessage",
          params.delta as string,
        );
        break;
      case "turn/retrying": {
        const { attempt, maxRetries, delayMs, message } = params as {
          attempt: number;
          maxRetries: number;
          delayMs: number;
          message: string;
        };
        const why = `retrying in ${Math.round(delayMs / 100) / 10}s (attempt ${attempt} of ${maxRetries}): ${message}`;
        change = this.state.retrying(turnId, why);
        break;
      }
      case "turn/diff/updated": {
        // a diff over the inline limit comes as a payload reference: its bytes are the text
        const diff = params.diff as string | PayloadRef;
        const text = isPayloadRef(diff) ? new TextDecoder().decode(await client.readPayload(diff)) : diff;
        change = this.state.turnDiff(turnId, text);
        break;
      }
      case "turn/queue/updated":
        this.state.queue = {
          steering: params.steering as string[],
          followUp: params.followUp as { id: string; text: string }[],
        };
        break;
      case "thread/tokenUsage/updated":
        this.state.usage = params.usage as ThreadState["usage"];
        break;
      default:
        return;
    }
    if (change !== undefined) this.view.update(change);
    this.onChange();
  }

  /** The running turn, if any. */
  running(): TurnView | undefined {
    return this.state.runningTurn;
  }
}
