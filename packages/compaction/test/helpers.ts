/** Builders for sessions made inside tests: a linear or branching tree of real entry shapes. */
import type { AssistantMessage, Usage } from "@knightcode/ai";
import type { AgentMessage, CompactionEntry, NewEntry, SessionEntry } from "@knightcode/session-store";

export function usage(input: number, output = 0): Usage {
  return {
    input,
    output,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: input + output,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** A user message of exactly `chars` characters (text given or filler). */
export function user(text: string | number): AgentMessage {
  return { role: "user", content: typeof text === "number" ? "u".repeat(text) : text, timestamp: 1 };
}

export function assistant(
  text: string | number,
  options: Partial<
    Pick<AssistantMessage, "stopReason" | "usage" | "content" | "errorMessage" | "errorKind">
  > = {},
): AssistantMessage {
  return {
    role: "assistant",
    content: options.content ?? [{ type: "text", text: typeof text === "number" ? "a".repeat(text) : text }],
    api: "anthropic-messages",
    provider: "mock",
    model: "mock-model",
    usage: options.usage ?? usage(0),
    stopReason: options.stopReason ?? "stop",
    ...(options.errorMessage ? { errorMessage: options.errorMessage } : {}),
    ...(options.errorKind ? { errorKind: options.errorKind } : {}),
    timestamp: 2,
  };
}

export function toolCall(name: string, args: Record<string, unknown>, id = `call-${name}`): AssistantMessage {
  return assistant("", { content: [{ type: "toolCall", id, name, arguments: args }], stopReason: "toolUse" });
}

export function toolResult(text: string | number, id = "call"): AgentMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: "read",
    content: [{ type: "text", text: typeof text === "number" ? "r".repeat(text) : text }],
    isError: false,
    timestamp: 3,
  };
}

/** Appends entries with predictable IDs (`e0`, `e1`, ...) as children of the leaf. */
export class TestSession {
  readonly entries: SessionEntry[] = [];
  leaf: string | null = null;
  #next = 0;

  add(entry: NewEntry, id = `e${this.#next}`): SessionEntry {
    this.#next++;
    const full = { ...entry, id, parentId: this.leaf, timestamp: "2026-01-01T00:00:00.000Z" } as SessionEntry;
    this.entries.push(full);
    this.leaf = id;
    return full;
  }

  msg(message: AgentMessage): string {
    return this.add({ type: "message", message }).id;
  }

  compaction(
    summary: string,
    firstKeptEntryId: string | "self",
    extra: Partial<CompactionEntry> = {},
  ): string {
    const id = `e${this.#next}`;
    return this.add({
      type: "compaction",
      summary,
      firstKeptEntryId: firstKeptEntryId === "self" ? id : firstKeptEntryId,
      tokensBefore: 1000,
      ...extra,
    } as NewEntry).id;
  }

  omit(...ids: string[]): string {
    return this.add({ type: "context_edit", omit: ids, reason: "test" }).id;
  }

  meta(): string {
    return this.add({ type: "thinking_level_change", thinkingLevel: "high" }).id;
  }

  get(id: string): SessionEntry | undefined {
    return this.entries.find((e) => e.id === id);
  }

  /** Root-first path to the leaf (or the given entry). */
  path(leafId: string | null = this.leaf): SessionEntry[] {
    const out: SessionEntry[] = [];
    let current = leafId === null ? undefined : this.get(leafId);
    while (current) {
      out.push(current);
      current = current.parentId === null ? undefined : this.get(current.parentId);
    }
    return out.reverse();
  }

  index(id: string): number {
    return this.path().findIndex((e) => e.id === id);
  }
}
