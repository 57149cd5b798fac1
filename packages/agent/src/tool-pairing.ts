/**
 * Every vendor rejects a request in which a tool call has no result, a result has no call,
 * or something else sits between a call and its results. The context can hold all three:
 * a message that ended in error or abort keeps its partial tool calls, a `message_end` hook
 * may drop a result, a steer or a session message may land between call and result, and
 * compaction may cut a call away from its result. This pass repairs the model's view (never
 * the stored context) before each request, so the next request is valid whatever happened.
 */
import type { AssistantMessage, Message, ToolCall, ToolResultMessage } from "@knightcode/ai";

/** Text of the result that stands in for a call that never got one. */
export const MISSING_RESULT_TEXT =
  "No result: this tool call did not complete (it was interrupted or its result was withdrawn).";

function isFailed(message: AssistantMessage): boolean {
  return message.stopReason === "error" || message.stopReason === "aborted";
}

function placeholder(call: ToolCall, timestamp: number): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: MISSING_RESULT_TEXT }],
    isError: true,
    timestamp,
  };
}

/**
 * Returns `messages` with every tool call followed directly by exactly one result, in call
 * order. Tool calls of an assistant message that ended in error or abort are removed (the
 * provider layer drops such messages, so a result for them would have no call); a result
 * with no matching call before it is removed; a missing result gets an error placeholder.
 * Messages that were already well paired come back as the same objects, in the same order.
 */
export function repairToolPairs(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let i = 0;
  while (i < messages.length) {
    const message = messages[i]!;
    i++;
    // A result reached here was not claimed by the assistant message before it.
    if (message.role === "toolResult") continue;
    if (message.role !== "assistant") {
      out.push(message);
      continue;
    }
    let assistant = message;
    if (isFailed(message) && message.content.some((c) => c.type === "toolCall")) {
      assistant = { ...message, content: message.content.filter((c) => c.type !== "toolCall") };
      // Nothing left to show the model; an empty assistant turn is itself rejected by some vendors.
      if (assistant.content.length === 0) continue;
    }
    const calls = assistant.content.filter((c): c is ToolCall => c.type === "toolCall");
    out.push(assistant);
    if (calls.length === 0) continue;

    // The span up to the next assistant message holds this message's results (and maybe steers).
    let end = i;
    while (end < messages.length && messages[end]!.role !== "assistant") end++;
    const results = new Map<string, ToolResultMessage>();
    const others: Message[] = [];
    const wanted = new Set(calls.map((c) => c.id));
    for (let j = i; j < end; j++) {
      const m = messages[j]!;
      if (m.role === "toolResult") {
        if (wanted.has(m.toolCallId) && !results.has(m.toolCallId)) results.set(m.toolCallId, m);
      } else {
        others.push(m);
      }
    }
    for (const call of calls) out.push(results.get(call.id) ?? placeholder(call, assistant.timestamp));
    out.push(...others);
    i = end;
  }
  return out;
}
