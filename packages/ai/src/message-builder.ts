import { calculateCost } from "./cost.ts";
import { describeFailure } from "./errors.ts";
import type {
  AssistantMessage,
  AssistantMessageEvent,
  Model,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCall,
} from "./types.ts";
import { emptyAssistantMessage } from "./types.ts";

/**
 * Assembles an `AssistantMessage` from provider deltas and emits the normalized events.
 * Providers call it with content indices they got back from the `*Start` methods; the
 * builder guarantees the `start ... done|error` framing and closes blocks left open.
 */
export class AssistantMessageBuilder {
  /** The message so far; it is also every event's `partial`. */
  readonly message: AssistantMessage;
  private readonly startedAt = performance.now();
  private readonly open = new Set<number>();
  private readonly rawArgs = new Map<number, string>();
  private finished = false;

  constructor(
    private readonly model: Model,
    private readonly emit: (event: AssistantMessageEvent) => void,
  ) {
    this.message = emptyAssistantMessage(model);
  }

  /** Emits `start`; call once before any content. */
  start(): void {
    this.emit({ type: "start", partial: this.message });
  }

  textStart(): number {
    const index = this.message.content.push({ type: "text", text: "" }) - 1;
    this.open.add(index);
    this.emit({ type: "text_start", contentIndex: index, partial: this.message });
    return index;
  }

  textDelta(index: number, delta: string): void {
    (this.message.content[index] as TextContent).text += delta;
    this.emit({ type: "text_delta", contentIndex: index, delta, partial: this.message });
  }

  thinkingStart(): number {
    const index = this.message.content.push({ type: "thinking", thinking: "" }) - 1;
    this.open.add(index);
    this.emit({ type: "thinking_start", contentIndex: index, partial: this.message });
    return index;
  }

  thinkingDelta(index: number, delta: string): void {
    (this.message.content[index] as ThinkingContent).thinking += delta;
    this.emit({ type: "thinking_delta", contentIndex: index, delta, partial: this.message });
  }

  /** Attaches the opaque signature (Anthropic) or encrypted reasoning item (OpenAI). */
  thinkingSignature(index: number, signature: string, redacted = false): void {
    const block = this.message.content[index] as ThinkingContent;
    block.thinkingSignature = (block.thinkingSignature ?? "") + signature;
    if (redacted) block.redacted = true;
  }

  toolCallStart(id: string, name: string): number {
    const index = this.message.content.push({ type: "toolCall", id, name, arguments: {} }) - 1;
    this.open.add(index);
    this.rawArgs.set(index, "");
    this.emit({ type: "toolcall_start", contentIndex: index, partial: this.message });
    return index;
  }

  toolCallDelta(index: number, delta: string): void {
    this.rawArgs.set(index, (this.rawArgs.get(index) ?? "") + delta);
    this.emit({ type: "toolcall_delta", contentIndex: index, delta, partial: this.message });
  }

  /** Updates a tool call's ID, name, vendor item ID or thought signature when the vendor sends them late. */
  toolCallPatch(
    index: number,
    patch: {
      id?: string | undefined;
      name?: string | undefined;
      providerItemId?: string;
      thoughtSignature?: string;
    },
  ): void {
    const call = this.message.content[index] as ToolCall;
    if (patch.id) call.id = patch.id;
    if (patch.name) call.name = patch.name;
    if (patch.providerItemId) call.providerItemId = patch.providerItemId;
    if (patch.thoughtSignature) call.thoughtSignature = patch.thoughtSignature;
  }

  /** Records the vendor's message item ID on a text block. */
  textSignature(index: number, signature: string): void {
    (this.message.content[index] as TextContent).textSignature = signature;
  }

  /** Closes a block, emitting its `*_end` event; `argsOverride` replaces streamed arguments. */
  end(index: number, argsOverride?: string): void {
    if (!this.open.delete(index)) return;
    const block = this.message.content[index]!;
    if (block.type === "text") {
      this.emit({ type: "text_end", contentIndex: index, content: block.text, partial: this.message });
    } else if (block.type === "thinking") {
      this.emit({
        type: "thinking_end",
        contentIndex: index,
        content: block.thinking,
        partial: this.message,
      });
    } else {
      block.arguments = parseArguments(argsOverride ?? this.rawArgs.get(index) ?? "");
      this.rawArgs.delete(index);
      this.emit({ type: "toolcall_end", contentIndex: index, toolCall: block, partial: this.message });
    }
  }

  /** Sets token counts (totals, not increments) and recomputes cost. */
  setUsage(counts: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number }): void {
    const usage = this.message.usage;
    if (counts.input !== undefined) usage.input = counts.input;
    if (counts.output !== undefined) usage.output = counts.output;
    if (counts.cacheRead !== undefined) usage.cacheRead = counts.cacheRead;
    if (counts.cacheWrite !== undefined) usage.cacheWrite = counts.cacheWrite;
    usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
    calculateCost(this.model.cost, usage);
  }

  /** Whether `done` or `error` has been emitted. */
  get isFinished(): boolean {
    return this.finished;
  }

  /** Closes open blocks and emits `done`. */
  finish(reason: Exclude<StopReason, "error" | "aborted">): void {
    if (this.finished) return;
    for (const index of [...this.open].sort((a, b) => a - b)) this.end(index);
    this.finished = true;
    this.message.stopReason = reason;
    this.message.durationMs = Math.round(performance.now() - this.startedAt);
    this.emit({ type: "done", reason, message: this.message });
  }

  /** Emits `error` (or `aborted` when the signal fired) with the classified failure. */
  fail(error: unknown, signal?: AbortSignal): void {
    if (this.finished) return;
    this.finished = true;
    const failure = describeFailure(error, signal);
    this.open.clear();
    const reason = failure.aborted ? "aborted" : "error";
    this.message.stopReason = reason;
    this.message.errorMessage = failure.message;
    if (!failure.aborted) this.message.errorKind = failure.kind;
    this.message.durationMs = Math.round(performance.now() - this.startedAt);
    const event: AssistantMessageEvent = { type: "error", reason, error: this.message };
    if (failure.retryAfterMs !== undefined) event.retryAfterMs = failure.retryAfterMs;
    this.emit(event);
  }
}

/** Parses streamed tool arguments; a non-object or broken JSON yields `{}` rather than a throw. */
export function parseArguments(raw: string): Record<string, unknown> {
  if (!raw.trim()) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** Error thrown when a stream ends without the vendor's terminal event. */
export class StreamCutError extends Error {
  constructor() {
    super("Connection terminated: the stream ended before the response completed");
    this.name = "StreamCutError";
  }
}
