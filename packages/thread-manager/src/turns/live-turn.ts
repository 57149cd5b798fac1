/**
 * One running turn as clients see it: provisional items while the model streams, and
 * final items from the history projection once each entry is persisted. The projection
 * decides IDs, contents, times and indexes, so a live `item/completed` equals what a
 * later `thread/read` returns.
 */
import type { AssistantMessageEvent } from "@knightcode/ai";
import type { SessionEntry } from "@knightcode/session-store";
import { projectTurns } from "../history/history-projection.ts";
import type { ThreadItem, Turn } from "../shapes.ts";

/** Notifications a live turn produces, all for the thread's subscribers. */
export type LiveTurnNotification =
  | { method: "item/started"; params: { threadId: string; turnId: string; item: ThreadItem } }
  | { method: "item/completed"; params: { threadId: string; turnId: string; item: ThreadItem } }
  | { method: "item/removed"; params: { threadId: string; turnId: string; itemId: string } }
  | {
      method: "item/agentMessage/delta";
      params: { threadId: string; turnId: string; itemId: string; delta: string };
    }
  | {
      method: "item/reasoning/delta";
      params: { threadId: string; turnId: string; itemId: string; delta: string };
    };

type Provisional = Extract<ThreadItem, { type: "agentMessage" | "reasoning" | "toolCall" }>;

/** Streams one turn's items and keeps a snapshot for `thread/resume`. */
export class LiveTurn {
  /** The turn's persisted entries, starting with its `turn_start`. */
  readonly entries: SessionEntry[] = [];
  /** Items already completed, by ID, in order. */
  private readonly completed = new Map<string, ThreadItem>();
  /** Items of the message now streaming, by content kind or call ID. */
  private provisional = new Map<string, Provisional>();
  private nextOrdinal = 0;
  /** Tool calls announced with `item/started` and waiting for their results. */
  private readonly startedCalls = new Set<string>();
  /** The user item that carries the client's message ID (the turn's first live one). */
  private clientMessageItemId: string | undefined;
  private clientMessageId: string | undefined;
  private ended = false;

  constructor(
    readonly threadId: string,
    readonly turnStart: Extract<SessionEntry, { type: "turn_start" }>,
    clientMessageId: string | undefined,
    private readonly send: (notification: LiveTurnNotification) => void,
  ) {
    this.entries.push(turnStart);
    this.clientMessageId = clientMessageId;
  }

  get id(): string {
    return this.turnStart.id;
  }

  private base() {
    return { threadId: this.threadId, turnId: this.id };
  }

  private topLevelCount(): number {
    let count = this.completed.size;
    for (const item of this.provisional.values()) if (!this.completed.has(item.id)) count += 1;
    return count;
  }

  private startProvisional(key: string, item: Provisional): void {
    item.index = this.topLevelCount();
    this.provisional.set(key, item);
    this.send({ method: "item/started", params: { ...this.base(), item: { ...item } } });
  }

  /** Applies one model stream event: provisional items and deltas. */
  onStreamEvent(event: AssistantMessageEvent): void {
    if (this.ended) return;
    switch (event.type) {
      case "thinking_start":
      case "text_start": {
        const kind = event.type === "thinking_start" ? "reasoning" : "agentMessage";
        if (this.provisional.has(kind)) return;
        const startedAt = event.partial.timestamp;
        const id = `${this.id}:${this.nextOrdinal}`;
        this.nextOrdinal += 1;
        this.startProvisional(kind, { id, type: kind, text: "", ...(startedAt ? { startedAt } : {}) });
        return;
      }
      case "thinking_delta":
      case "text_delta": {
        const kind = event.type === "thinking_delta" ? "reasoning" : "agentMessage";
        const item = this.provisional.get(kind) as Extract<
          ThreadItem,
          { type: "reasoning" | "agentMessage" }
        >;
        if (!item) return;
        item.text += event.delta;
        // the hot path of a streamed reply: one object literal per delta, no spread
        this.send({
          method: kind === "reasoning" ? "item/reasoning/delta" : "item/agentMessage/delta",
          params: { threadId: this.threadId, turnId: this.turnStart.id, itemId: item.id, delta: event.delta },
        });
        return;
      }
      case "toolcall_end": {
        const call = event.toolCall;
        if (this.provisional.has(call.id)) return;
        this.startProvisional(call.id, {
          id: call.id,
          type: "toolCall",
          toolName: call.name,
          input: call.arguments,
          status: "inProgress",
        });
        return;
      }
      default:
        return;
    }
  }

  /** The model request failed or the message was dropped: withdraw what it started. */
  withdrawStreaming(): void {
    for (const item of this.provisional.values()) {
      if (this.completed.has(item.id)) continue;
      this.send({ method: "item/removed", params: { ...this.base(), itemId: item.id } });
    }
    this.provisional.clear();
    this.resyncOrdinal();
  }

  private resyncOrdinal(): void {
    const [projected] = projectTurns(this.entries, { runningTurnId: this.id });
    this.nextOrdinal = projected?.nextOrdinal ?? 0;
  }

  /**
   * An entry of this turn was persisted: its items are final. Items it started
   * provisionally but no longer contains are withdrawn.
   */
  onEntryPersisted(entry: SessionEntry): void {
    this.entries.push(entry);
    const [projected] = projectTurns(this.entries, { runningTurnId: this.id });
    if (!projected) return;
    this.nextOrdinal = projected.nextOrdinal;
    const byId = new Map((projected.turn.items ?? []).map((i) => [i.id, i]));
    const produced = projected.itemsByEntry.get(entry.id) ?? [];
    const finished = new Set<string>(produced);
    // A tool result finalizes its call, which an earlier entry produced.
    if (entry.type === "message" && entry.message.role === "toolResult")
      finished.add(entry.message.toolCallId);
    const isAssistant = entry.type === "message" && entry.message.role === "assistant";
    const streamed = new Set([...this.provisional.values()].map((i) => i.id));
    if (isAssistant) {
      for (const item of this.provisional.values()) {
        if (!byId.has(item.id))
          this.send({ method: "item/removed", params: { ...this.base(), itemId: item.id } });
      }
    }
    for (const id of finished) {
      const item = byId.get(id);
      if (!item) continue;
      const isOpenCall = item.type === "toolCall" && item.status === "inProgress";
      if (!streamed.has(id) && !this.completed.has(id) && !this.startedCalls.has(id)) {
        // Items that never streamed (user messages, compaction, calls without stream events) start now.
        this.send({ method: "item/started", params: { ...this.base(), item: this.decorate(item) } });
      }
      if (isOpenCall) {
        // A call is final only once its result is persisted; until then it stays started.
        this.startedCalls.add(id);
        continue;
      }
      this.completed.set(id, item);
      this.send({ method: "item/completed", params: { ...this.base(), item: this.decorate(item) } });
    }
    if (isAssistant) this.provisional.clear();
    // Calls the projection now reads as final without a result of their own (a dropped
    // result, a failed message, the turn's end) complete as the projection reads them.
    for (const id of this.startedCalls) {
      const item = byId.get(id);
      if (item?.type !== "toolCall" || item.status === "inProgress") continue;
      this.startedCalls.delete(id);
      if (this.completed.has(id)) continue;
      this.completed.set(id, item);
      this.send({ method: "item/completed", params: { ...this.base(), item: this.decorate(item) } });
    }
  }

  /**
   * A user message was dropped at message end. When it was the turn's first (the input the
   * turn started with), the client's message ID goes with it: a removed input creates no
   * matching item, so no later user message (a steer) may carry the ID.
   */
  userMessageDropped(): void {
    if (this.clientMessageItemId === undefined) this.clientMessageId = undefined;
  }

  /** The client's message ID rides on the first live user message only. */
  private decorate(item: ThreadItem): ThreadItem {
    if (item.type !== "userMessage" || this.clientMessageId === undefined) return item;
    this.clientMessageItemId ??= item.id;
    if (item.id !== this.clientMessageItemId) return item;
    return { ...item, clientMessageId: this.clientMessageId };
  }

  /** The turn as it stands now, provisional items included, for `runningTurn` snapshots. */
  snapshot(): Turn {
    const [projected] = projectTurns(this.entries, { runningTurnId: this.id });
    const turn: Turn = projected?.turn ?? {
      id: this.id,
      status: "inProgress",
      startedAt: this.turnStart.startedAt,
    };
    const items = [...(turn.items ?? [])];
    const known = new Set(items.map((i) => i.id));
    for (const item of this.provisional.values()) if (!known.has(item.id)) items.push({ ...item });
    return { ...turn, items };
  }

  /** Stops streaming; later stream events are ignored. */
  end(): void {
    this.ended = true;
  }
}
