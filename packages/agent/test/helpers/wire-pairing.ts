import type { RecordedRequest } from "@knightcode/testkit";

interface ChatMessage {
  role: string;
  tool_calls?: { id: string }[];
  tool_call_id?: string;
}

interface ResponsesItem {
  type?: string;
  call_id?: string;
}

interface AnthropicMessage {
  role: string;
  content: string | { type: string; id?: string; tool_use_id?: string }[];
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join("\n") === [...b].sort().join("\n");
}

function chatProblems(messages: ChatMessage[]): string[] {
  const problems: string[] = [];
  let open: string[] = [];
  for (const [i, m] of messages.entries()) {
    if (m.role === "tool") {
      if (!open.includes(m.tool_call_id ?? "")) problems.push(`message ${i}: tool result without its call`);
      open = open.filter((id) => id !== m.tool_call_id);
      continue;
    }
    if (open.length > 0) problems.push(`message ${i}: ${m.role} before results for ${open.join(", ")}`);
    open = (m.tool_calls ?? []).map((c) => c.id);
  }
  if (open.length > 0) problems.push(`calls without results at the end: ${open.join(", ")}`);
  return problems;
}

function responsesProblems(items: ResponsesItem[]): string[] {
  const problems: string[] = [];
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const [i, item] of items.entries()) {
    if (item.type === "function_call") calls.add(item.call_id ?? "");
    if (item.type === "function_call_output") {
      if (!calls.has(item.call_id ?? "")) problems.push(`item ${i}: output without its call`);
      answered.add(item.call_id ?? "");
    }
  }
  for (const id of calls) if (!answered.has(id)) problems.push(`call ${id} has no output`);
  return problems;
}

function anthropicProblems(messages: AnthropicMessage[]): string[] {
  const problems: string[] = [];
  const blocks = (m: AnthropicMessage | undefined) => (Array.isArray(m?.content) ? m.content : []);
  for (const [i, m] of messages.entries()) {
    const results = blocks(m)
      .filter((b) => b.type === "tool_result")
      .map((b) => b.tool_use_id ?? "");
    const previousCalls =
      m.role === "user" && messages[i - 1]?.role === "assistant"
        ? blocks(messages[i - 1])
            .filter((b) => b.type === "tool_use")
            .map((b) => b.id ?? "")
        : [];
    if (previousCalls.length > 0 && !sameSet(previousCalls, results)) {
      problems.push(`message ${i}: results [${results}] do not answer calls [${previousCalls}]`);
    } else if (previousCalls.length === 0 && results.length > 0) {
      problems.push(`message ${i}: tool results without calls`);
    }
    if (m.role === "assistant" && blocks(m).some((b) => b.type === "tool_use")) {
      const next = messages[i + 1];
      if (next?.role !== "user") problems.push(`message ${i}: tool calls with no user turn after`);
    }
  }
  return problems;
}

/**
 * What a vendor would reject about the tool calls and results in a recorded request: a call
 * without its result, a result without its call, or anything between them. Empty when valid.
 */
export function pairingProblems(request: RecordedRequest | undefined): string[] {
  if (!request) throw new Error("no such request");
  const body = request.body as { messages?: unknown[]; input?: unknown[] };
  switch (request.format) {
    case "chat-completions":
      return chatProblems((body.messages ?? []) as ChatMessage[]);
    case "responses":
      return responsesProblems((body.input ?? []) as ResponsesItem[]);
    case "anthropic-messages":
      return anthropicProblems((body.messages ?? []) as AnthropicMessage[]);
    default:
      throw new Error(`unknown wire format ${request.format}`);
  }
}
