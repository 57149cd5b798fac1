import { describe, expect, test } from "bun:test";
import { type AssistantMessage, type Context, DEMO_MODEL, emptyUsage, type Model } from "../../src/index.ts";
import { anthropicRequest, chatCompletionsRequest, responsesRequest } from "../../src/providers/built-in.ts";

const model: Model = {
  ...DEMO_MODEL,
  reasoning: true,
  thinkingLevels: ["off", "low", "high"],
  maxTokens: 32_000,
};
const assistant = (
  api: string,
  content: AssistantMessage["content"],
  stopReason: AssistantMessage["stopReason"] = "toolUse",
): AssistantMessage => ({
  role: "assistant",
  content,
  api,
  provider: "p",
  model: "m",
  usage: emptyUsage(),
  stopReason,
  timestamp: 1,
});
const context: Context = {
  systemPrompt: "sys",
  messages: [
    { role: "user", content: "go", timestamp: 1 },
    assistant("anthropic-messages", [
      { type: "thinking", thinking: "hm", thinkingSignature: "sig" },
      { type: "toolCall", id: "call|1", name: "ls", arguments: { path: "." } },
      { type: "toolCall", id: "call_2", name: "read", arguments: { path: "a" } },
    ]),
    {
      role: "toolResult",
      toolCallId: "call|1",
      toolName: "ls",
      content: [{ type: "text", text: "a" }],
      isError: false,
      timestamp: 2,
    },
    { role: "toolResult", toolCallId: "call_2", toolName: "read", content: [], isError: true, timestamp: 3 },
    assistant("anthropic-messages", [{ type: "text", text: "half" }], "aborted"),
    { role: "user", content: "next", timestamp: 4 },
  ],
};

describe("anthropic request", () => {
  test("groups tool results in one user turn, sanitizes IDs, replays signed thinking, drops aborted turns", () => {
    const body = anthropicRequest(model, context, { thinkingLevel: "high" });
    expect(body.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "user"]);
    const toolTurn = body.messages[2]!.content as {
      type: string;
      tool_use_id?: string;
      is_error?: boolean;
    }[];
    expect(toolTurn.map((b) => b.tool_use_id)).toEqual(["call_1", "call_2"]);
    expect(toolTurn[1]?.is_error).toBe(true);
    expect(body.messages[1]!.content).toContainEqual({ type: "thinking", thinking: "hm", signature: "sig" });
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 20_480 });
  });

  test("marks prompt-cache breakpoints unless cache writes are disabled", () => {
    const cached = JSON.stringify(anthropicRequest(model, context));
    expect(cached.match(/cache_control/g)?.length).toBe(2);
    const uncached = JSON.stringify(anthropicRequest(model, context, { disablePromptCacheWrites: true }));
    expect(uncached).not.toContain("cache_control");
  });
});

describe("openai requests", () => {
  test("chat completions: system first, tool calls and tool messages, usage requested", () => {
    const body = chatCompletionsRequest(model, context, { thinkingLevel: "low" });
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "user"]);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.reasoning_effort).toBe("low");
    expect(body.max_tokens).toBe(32_000);
  });

  test("responses: stateless, instructions, function call items, encrypted reasoning requested", () => {
    const body = responsesRequest(model, context, { thinkingLevel: "high", sessionId: "s1" });
    expect(body.store).toBe(false);
    expect(body.instructions).toBe("sys");
    expect(body.include).toEqual(["reasoning.encrypted_content"]);
    expect(body.prompt_cache_key).toBe("s1");
    const types = (body.input as { type?: string; role?: string }[]).map((i) => i.type ?? i.role);
    expect(types).toEqual([
      "user",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
      "user",
    ]);
    expect(
      responsesRequest(model, context, { sessionId: "s1", disablePromptCacheWrites: true }).prompt_cache_key,
    ).toBeUndefined();
  });
});

describe("responses replay of reasoning", () => {
  const reasoningItem = { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc" };
  const turn = (signature: string | undefined): Context => ({
    messages: [
      { role: "user", content: "go", timestamp: 1 },
      assistant("openai-responses", [
        { type: "thinking", thinking: "", ...(signature ? { thinkingSignature: signature } : {}) },
        { type: "text", text: "looking", textSignature: "msg_1" },
        { type: "toolCall", id: "call_1", name: "ls", arguments: {}, providerItemId: "fc_1" },
      ]),
    ],
  });

  test("sends the reasoning item followed by its items with their vendor IDs", () => {
    const body = responsesRequest(model, turn(JSON.stringify(reasoningItem)));
    const input = body.input as unknown as Record<string, unknown>[];
    expect(input[1]).toEqual(reasoningItem);
    expect(input[2]).toMatchObject({ type: "message", id: "msg_1", role: "assistant" });
    expect(input[3]).toMatchObject({ type: "function_call", id: "fc_1", call_id: "call_1" });
  });

  test("without replayable reasoning, the vendor IDs are left out", () => {
    const noEncrypted = JSON.stringify({ ...reasoningItem, encrypted_content: null });
    for (const signature of [undefined, noEncrypted]) {
      const input = responsesRequest(model, turn(signature)).input as unknown as Record<string, unknown>[];
      expect(input.map((i) => i.type ?? i.role)).toEqual(["user", "assistant", "function_call"]);
      expect(input[2]?.id).toBeUndefined();
    }
  });

  test("a reasoning model always asks for encrypted reasoning, even at the default effort", () => {
    expect(responsesRequest(model, turn(undefined)).include).toEqual(["reasoning.encrypted_content"]);
    expect(responsesRequest(model, turn(undefined)).reasoning).toBeUndefined();
    expect(responsesRequest({ ...model, reasoning: false }, turn(undefined)).include).toBeUndefined();
  });
});

describe("chat completions compat switches", () => {
  test("supportsUsageInStreaming and supportsReasoningEffort false drop those fields", () => {
    const quirky = { ...model, compat: { supportsUsageInStreaming: false, supportsReasoningEffort: false } };
    const body = chatCompletionsRequest(quirky, context, { thinkingLevel: "high" });
    expect(body.stream_options).toBeUndefined();
    expect(body.reasoning_effort).toBeUndefined();
  });

  test("the openai provider gets max_completion_tokens", () => {
    const body = chatCompletionsRequest({ ...model, provider: "openai" }, context);
    expect(body.max_completion_tokens).toBe(32_000);
    expect(body.max_tokens).toBeUndefined();
  });
});
