/**
 * The one pure function from session entries to protocol turns and items. `thread/read`,
 * `thread/resume` and live `item/completed` all use it, so an item keeps the same ID and
 * final contents whether it was seen live or read back later.
 *
 * IDs: a turn is its `turn_start` entry's ID; items are `<turnId>:<ordinal>` with the
 * ordinal counting non-tool-call items in order, except tool calls, which keep the
 * provider's call ID. Turns are grouped by the session store's rule: markers, and for
 * transcripts without them (pi), a turn per user message taking that entry's ID.
 */
import type { AssistantMessage, ToolResultMessage } from "@knightcode/ai";
import {
  type AgentMessage,
  groupTurns,
  type MessageEntry,
  type SessionEntry,
  type TurnEndEntry,
  type TurnGroup,
} from "@knightcode/session-store";
import type { ThreadItem, Turn } from "../shapes.ts";
import { fileChangesOf } from "../turns/file-changes.ts";
import { boundErrorMessage, normalizeErrorKind } from "../turns/turn-error.ts";
import { contentImages, contentText } from "./message-content.ts";

/** Options for projecting history. */
export interface ProjectionOptions {
  /** The turn still running in this process: it reads `inProgress` instead of `interrupted`. */
  runningTurnId?: string;
}

/** A projected turn with the entry each item came from, for live completion. */
export interface ProjectedTurn {
  turn: Turn;
  /** Item IDs produced by each entry, in order. */
  itemsByEntry: Map<string, string[]>;
  /** The ordinal the turn's next non-tool-call item will take. */
  nextOrdinal: number;
}

/** Details a declined or cancelled call's tool result carries, so history can tell it from a failure. */
export interface DeclinedResultDetails {
  approval: "declined" | "cancelled";
}

function isoMs(iso: string): number | undefined {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Whether a tool result records an approval refusal rather than a failure. */
export function isDeclinedResult(result: ToolResultMessage): boolean {
  const details = result.details as Partial<DeclinedResultDetails> | undefined;
  return (
    typeof details === "object" &&
    details !== null &&
    (details.approval === "declined" || details.approval === "cancelled")
  );
}

/** When an assistant message finished: its timestamp plus its measured duration. */
export function assistantCompletedAt(message: AssistantMessage, entryTimestamp: string): number | undefined {
  if (typeof message.durationMs === "number") return message.timestamp + message.durationMs;
  return isoMs(entryTimestamp);
}

/** Builds one turn's items from its entries; shared by marker and synthetic turns. */
class TurnBuilder {
  readonly items: ThreadItem[] = [];
  readonly itemsByEntry = new Map<string, string[]>();
  private ordinal = 0;
  private readonly calls = new Map<string, Extract<ThreadItem, { type: "toolCall" }>>();
  private readonly callArgs = new Map<string, Record<string, unknown>>();
  lastAssistant: AssistantMessage | undefined;
  lastTime: number | undefined;
  end: TurnEndEntry | undefined;

  constructor(
    readonly id: string,
    readonly startedAt: number,
    readonly synthetic: boolean,
  ) {}

  private nextId(): string {
    const id = `${this.id}:${this.ordinal}`;
    this.ordinal += 1;
    return id;
  }

  private push(entryId: string, item: ThreadItem): void {
    item.index = this.items.length;
    this.items.push(item);
    const list = this.itemsByEntry.get(entryId);
    if (list) list.push(item.id);
    else this.itemsByEntry.set(entryId, [item.id]);
  }

  add(entry: SessionEntry): void {
    const time = isoMs(entry.timestamp);
    if (time !== undefined) this.lastTime = time;
    switch (entry.type) {
      case "message":
        this.addMessage(entry.id, entry.message, entry.timestamp);
        return;
      case "custom_message":
        if (entry.display) {
          this.push(entry.id, {
            id: this.nextId(),
            type: "extension",
            customType: entry.customType,
            text: contentText(entry.content),
            ...(entry.details !== undefined ? { details: entry.details } : {}),
            ...(time !== undefined ? { completedAt: time } : {}),
          });
        }
        return;
      case "compaction":
        this.push(entry.id, {
          id: this.nextId(),
          type: "compaction",
          summary: entry.summary,
          tokensBefore: entry.tokensBefore,
          ...(time !== undefined ? { completedAt: time } : {}),
        });
        return;
      case "branch_summary":
        this.push(entry.id, {
          id: this.nextId(),
          type: "extension",
          customType: "branch_summary",
          text: entry.summary,
          ...(time !== undefined ? { completedAt: time } : {}),
        });
        return;
      case "turn_end":
        if (entry.turnId === this.id) this.end = entry;
        return;
      default:
        return;
    }
  }

  private addMessage(entryId: string, message: AgentMessage, entryTimestamp: string): void {
    switch (message.role) {
      case "user": {
        const images = contentImages(message.content).map((i) => ({
          mimeType: i.mimeType as "image/png",
          data: i.data,
        }));
        this.push(entryId, {
          id: this.nextId(),
          type: "userMessage",
          text: contentText(message.content),
          ...(images.length > 0 ? { images } : {}),
          completedAt: message.timestamp,
        });
        return;
      }
      case "assistant":
        this.addAssistant(entryId, message, entryTimestamp);
        return;
      case "toolResult":
        this.addToolResult(message);
        return;
      case "custom":
        if (message.display) {
          this.push(entryId, {
            id: this.nextId(),
            type: "extension",
            customType: message.customType,
            text: contentText(message.content),
            ...(message.details !== undefined ? { details: message.details } : {}),
            completedAt: message.timestamp,
          });
        }
        return;
      case "bashExecution":
        this.push(entryId, {
          id: this.nextId(),
          type: "toolCall",
          toolName: "bash",
          input: { command: message.command },
          output: message.output,
          status: message.cancelled || (message.exitCode ?? 0) !== 0 ? "failed" : "completed",
          completedAt: message.timestamp,
        });
        return;
      default:
        return;
    }
  }

  private addAssistant(entryId: string, message: AssistantMessage, entryTimestamp: string): void {
    // A call still unanswered when the model replies again never gets its result (a
    // `message_end` hook dropped it, or its message failed): it reads `failed` now, not
    // only once the turn has ended.
    for (const item of this.calls.values()) if (item.status === "inProgress") item.status = "failed";
    this.lastAssistant = message;
    const completedAt = assistantCompletedAt(message, entryTimestamp);
    const times = { startedAt: message.timestamp, ...(completedAt !== undefined ? { completedAt } : {}) };
    let reasoning: Extract<ThreadItem, { type: "reasoning" }> | undefined;
    let text: Extract<ThreadItem, { type: "agentMessage" }> | undefined;
    for (const part of message.content) {
      if (part.type === "thinking") {
        if (!reasoning) {
          reasoning = { id: this.nextId(), type: "reasoning", text: "", ...times };
          this.push(entryId, reasoning);
        }
        reasoning.text += part.thinking;
      } else if (part.type === "text") {
        if (!text) {
          text = { id: this.nextId(), type: "agentMessage", text: "", ...times };
          this.push(entryId, text);
        }
        text.text += part.text;
      } else if (part.type === "toolCall") {
        const item: Extract<ThreadItem, { type: "toolCall" }> = {
          id: part.id,
          type: "toolCall",
          toolName: part.name,
          input: part.arguments,
          status: "inProgress",
          ...(completedAt !== undefined ? { startedAt: completedAt } : {}),
        };
        this.calls.set(part.id, item);
        this.callArgs.set(part.id, part.arguments);
        this.push(entryId, item);
      }
    }
  }

  private addToolResult(result: ToolResultMessage): void {
    const item = this.calls.get(result.toolCallId);
    if (!item) return;
    item.output = contentText(result.content);
    item.completedAt = result.timestamp;
    if (isDeclinedResult(result)) {
      item.status = "declined";
      return;
    }
    item.status = result.isError ? "failed" : "completed";
    const changes = fileChangesOf(item.toolName, this.callArgs.get(result.toolCallId) ?? {}, result);
    if (changes) item.fileChanges = changes;
  }

  finish(options: ProjectionOptions): ProjectedTurn {
    const running = this.id === options.runningTurnId && !this.end;
    const turn: Turn = { id: this.id, status: "completed", startedAt: this.startedAt, items: this.items };
    if (this.end) {
      turn.status = this.end.outcome;
      turn.completedAt = this.end.completedAt;
      if (this.end.error && this.end.outcome === "failed") {
        turn.error = {
          message: this.end.error.message,
          kind: normalizeErrorKind(this.end.error.kind, this.end.error.message),
        };
      }
    } else if (running) {
      turn.status = "inProgress";
    } else if (!this.synthetic) {
      // A marker turn without its end entry was cut short (crash, kill, lost ownership).
      turn.status = "interrupted";
    } else {
      this.finishSynthetic(turn);
    }
    // a reply cut at the output limit is a completed turn the client should know was cut
    if (turn.status === "completed" && this.lastAssistant?.stopReason === "length")
      turn.stopReason = "maxTokens";
    // Calls never answered belong to a turn that stopped around them.
    if (!running) {
      for (const item of this.calls.values()) if (item.status === "inProgress") item.status = "failed";
    }
    return { turn, itemsByEntry: this.itemsByEntry, nextOrdinal: this.ordinal };
  }

  /** pi transcripts carry no markers: the last assistant reply says how the turn went. */
  private finishSynthetic(turn: Turn): void {
    if (this.lastTime !== undefined) turn.completedAt = Math.max(this.lastTime, this.startedAt);
    const last = this.lastAssistant;
    if (last?.stopReason === "aborted") turn.status = "interrupted";
    else if (last?.stopReason === "error") {
      const message = last.errorMessage ?? "The model request failed";
      turn.status = "failed";
      turn.error = { message, kind: normalizeErrorKind(last.errorKind, message) };
    }
  }
}

/** Projects one stored turn (its marker or opening user message and what follows). */
export function projectTurnGroup(group: TurnGroup, options: ProjectionOptions = {}): ProjectedTurn {
  const startedAt = group.start.type === "turn_start" ? group.start.startedAt : startTime(group.start);
  const builder = new TurnBuilder(group.id, startedAt, group.legacy);
  for (const entry of group.entries) if (entry.type !== "turn_start") builder.add(entry);
  return builder.finish(options);
}

function startTime(entry: MessageEntry): number {
  return entry.message.role === "user" ? entry.message.timestamp : (isoMs(entry.timestamp) ?? 0);
}

/**
 * Projects a branch (root to leaf, in order) into turns with their items, grouped the
 * way the session store pages them. Pure: the same entries always give the same turns.
 */
export function projectTurns(
  entries: readonly SessionEntry[],
  options: ProjectionOptions = {},
): ProjectedTurn[] {
  return groupTurns(entries).turns.map((group) => projectTurnGroup(group, options));
}

/** Convenience: just the turns. */
export function projectHistory(entries: readonly SessionEntry[], options: ProjectionOptions = {}): Turn[] {
  return projectTurns(entries, options).map((p) => p.turn);
}

/** A turn without items and with a bounded error message, for `turn/completed` and `thread/turn/completed`. */
export function turnSummary(turn: Turn): Turn {
  const { items: _items, ...summary } = turn;
  if (turn.error) summary.error = { message: boundErrorMessage(turn.error.message), kind: turn.error.kind };
  return summary;
}
