/**
 * Checks a replayed server makes of the follow-up request, returning its rejection text (as
 * the real server words it) or undefined. They read the request body in the wire format of the
 * endpoint it was sent to.
 */
import type { RecordedRequest } from "../script.ts";

type Check = (request: RecordedRequest) => string | undefined;
type Json = Record<string, unknown>;

const messagesOf = (request: RecordedRequest): Json[] =>
  ((request.body as { messages?: Json[] } | undefined)?.messages ?? []) as Json[];
const inputOf = (request: RecordedRequest): Json[] =>
  ((request.body as { input?: Json[] } | undefined)?.input ?? []) as Json[];

/** Runs checks in order; the first rejection wins. */
export function allOf(...checks: Check[]): Check {
  return (request) => {
    for (const check of checks) {
      const rejection = check(request);
      if (rejection !== undefined) return rejection;
    }
    return undefined;
  };
}

/** The ids of the calls in the newest assistant turn and of the results that follow it. */
function callsAndResults(request: RecordedRequest): { calls: string[]; results: string[] } {
  if (request.format === "chat-completions") {
    const messages = messagesOf(request);
    const at = messages.findLastIndex((m) => m.role === "assistant" && Array.isArray(m.tool_calls));
    if (at < 0) return { calls: [], results: [] };
    const calls = (messages[at]!.tool_calls as Json[]).map((c) => String(c.id ?? ""));
    const results = messages
      .slice(at + 1)
      .filter((m) => m.role === "tool")
      .map((m) => String(m.tool_call_id ?? ""));
    return { calls, results };
  }
  if (request.format === "responses") {
    const input = inputOf(request);
    const calls = input.filter((i) => i.type === "function_call").map((i) => String(i.call_id ?? ""));
    const results = input
      .filter((i) => i.type === "function_call_output")
      .map((i) => String(i.call_id ?? ""));
    return { calls, results };
  }
  const messages = messagesOf(request);
  const at = messages.findLastIndex(
    (m) =>
      m.role === "assistant" &&
      Array.isArray(m.content) &&
      (m.content as Json[]).some((b) => b.type === "tool_use"),
  );
  if (at < 0) return { calls: [], results: [] };
  const calls = (messages[at]!.content as Json[])
    .filter((b) => b.type === "tool_use")
    .map((b) => String(b.id ?? ""));
  const results = messages
    .slice(at + 1)
    .flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : []))
    .filter((b) => b.type === "tool_result")
    .map((b) => String(b.tool_use_id ?? ""));
  return { calls, results };
}

/**
 * The request carries `count` tool calls with distinct, non-empty ids, each followed by exactly
 * one result with its id (what every vendor enforces, worded like OpenAI's 400).
 */
export function toolResultsFor(count: number): Check {
  return (request) => {
    const { calls, results } = callsAndResults(request);
    if (calls.length !== count)
      return `expected ${count} tool calls in the assistant message, got ${calls.length}`;
    if (calls.some((id) => id === "") || new Set(calls).size !== calls.length)
      return `Invalid parameter: tool call ids must be unique and non-empty (got ${JSON.stringify(calls)})`;
    const sorted = (ids: string[]) => [...ids].sort().join(",");
    if (results.length !== calls.length || sorted(results) !== sorted(calls))
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (calls ${JSON.stringify(calls)}, results ${JSON.stringify(results)})`;
    return undefined;
  };
}

/** DeepSeek's thinking mode: the tool-calling assistant message carries its reasoning_content. */
export function reasoningContentCameBack(expected: string): Check {
  return (request) => {
    const assistant = messagesOf(request).findLast(
      (m) => m.role === "assistant" && Array.isArray(m.tool_calls),
    );
    if (assistant?.reasoning_content !== expected)
      return "The reasoning_content in the thinking mode must be passed back to the API.";
    return undefined;
  };
}

/** Gemini 3: each function call that had a thought signature sends it back (by call position). */
export function thoughtSignaturesCameBack(expected: (string | undefined)[]): Check {
  return (request) => {
    const assistant = messagesOf(request).findLast(
      (m) => m.role === "assistant" && Array.isArray(m.tool_calls),
    );
    const calls = (assistant?.tool_calls ?? []) as Json[];
    for (const [position, signature] of expected.entries()) {
      if (signature === undefined) continue;
      const sent = (
        calls[position]?.extra_content as { google?: { thought_signature?: unknown } } | undefined
      )?.google?.thought_signature;
      if (sent !== signature)
        return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String((calls[position]?.function as Json | undefined)?.name ?? "")}\` , position ${position + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
    }
    return undefined;
  };
}
