import { describe, expect, test } from "bun:test";
import { tempAgentDir } from "@knightcode/testkit";
import {
  type Context,
  chatCompat,
  DEMO_MODEL,
  detectedCompat,
  emptyUsage,
  type Model,
  ModelRegistry,
  ModelsConfigError,
} from "../src/index.ts";
import { chatCompletionsRequest } from "../src/providers/built-in.ts";

const model = (provider: string, baseUrl?: string, compat?: Record<string, unknown>): Model => ({
  ...DEMO_MODEL,
  api: "openai-completions",
  provider,
  ...(baseUrl ? { baseUrl } : {}),
  ...(compat ? { compat } : {}),
});

describe("compat defaults detected from the provider or base URL", () => {
  test("DeepSeek by host or provider name sends reasoning_content; nothing else does", () => {
    expect(detectedCompat(model("my-ds", "https://api.deepseek.com/v1")).sendReasoningContent).toBe(true);
    expect(detectedCompat(model("deepseek", "http://127.0.0.1:9/v1")).sendReasoningContent).toBe(true);
    expect(detectedCompat(model("ollama", "http://127.0.0.1:11434/v1")).sendReasoningContent).toBe(false);
    // A proxy in front of DeepSeek is not recognisable: it takes an explicit setting.
    expect(detectedCompat(model("litellm", "https://llm.example.com/v1")).sendReasoningContent).toBe(false);
  });

  test("Gemini by host or provider name sends thought signatures", () => {
    const host = model("g", "https://generativelanguage.googleapis.com/v1beta/openai/");
    expect(detectedCompat(host).sendThoughtSignatures).toBe(true);
    expect(detectedCompat(model("google", "http://127.0.0.1:9")).sendThoughtSignatures).toBe(true);
    expect(detectedCompat(model("gemini")).sendThoughtSignatures).toBe(true);
    expect(detectedCompat(model("vllm", "http://10.0.0.2:8000/v1")).sendThoughtSignatures).toBe(false);
  });

  test("OpenAI itself takes max_completion_tokens; other servers max_tokens", () => {
    expect(detectedCompat(model("openai")).maxTokensField).toBe("max_completion_tokens");
    expect(detectedCompat(model("x", "https://api.openai.com/v1")).maxTokensField).toBe(
      "max_completion_tokens",
    );
    expect(detectedCompat(model("x", "not a url")).maxTokensField).toBe("max_tokens");
  });

  test("models.json settings override the detected defaults; ill-typed values are ignored", () => {
    const m = model("deepseek", undefined, { sendReasoningContent: false, sendThoughtSignatures: true });
    expect(chatCompat(m)).toMatchObject({ sendReasoningContent: false, sendThoughtSignatures: true });
    expect(
      chatCompat(model("deepseek", undefined, { sendReasoningContent: "no" })).sendReasoningContent,
    ).toBe(true);
  });
});

describe("what the compat settings put on the wire", () => {
  const context: Context = {
    messages: [
      { role: "user", content: "go", timestamp: 1 },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "plan" },
          { type: "text", text: "ok" },
          { type: "toolCall", id: "c1", name: "ls", arguments: {}, thoughtSignature: "sig-1" },
        ],
        api: "openai-completions",
        provider: "p",
        model: "m",
        usage: emptyUsage(),
        stopReason: "toolUse",
        timestamp: 2,
      },
      { role: "toolResult", toolCallId: "c1", toolName: "ls", content: [], isError: false, timestamp: 3 },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "no tools here" },
          { type: "text", text: "done" },
        ],
        api: "openai-completions",
        provider: "p",
        model: "m",
        usage: emptyUsage(),
        stopReason: "stop",
        timestamp: 4,
      },
    ],
  };
  const assistants = (m: Model) =>
    chatCompletionsRequest(m, context).messages.filter((x) => x.role === "assistant") as unknown as Record<
      string,
      unknown
    >[];

  test("reasoning_content rides on tool-calling assistant messages only, and only when set", () => {
    const [withTools, plain] = assistants(model("deepseek"));
    expect(withTools!.reasoning_content).toBe("plan");
    expect("reasoning_content" in plain!).toBe(false);
    expect(assistants(model("ollama")).some((a) => "reasoning_content" in a)).toBe(false);
  });

  test("the thought signature goes back on its call only when set", () => {
    const [withTools] = assistants(model("gemini"));
    expect(withTools!.tool_calls).toEqual([
      {
        id: "c1",
        type: "function",
        function: { name: "ls", arguments: "{}" },
        extra_content: { google: { thought_signature: "sig-1" } },
      },
    ]);
    const [other] = assistants(model("vllm"));
    expect((other!.tool_calls as Record<string, unknown>[])[0]!.extra_content).toBeUndefined();
  });
});

describe("compat in models.json", () => {
  test("per model over per provider over the detected defaults; unknown keys are kept", async () => {
    await using dir = await tempAgentDir({
      models: {
        providers: {
          deepseek: {
            baseUrl: "http://127.0.0.1:9/v1",
            api: "openai-completions",
            compat: { supportsUsageInStreaming: false, someOtherAgentsKey: 1 },
            models: [
              { id: "deepseek-reasoner" },
              {
                id: "deepseek-chat",
                compat: { sendReasoningContent: false, supportsUsageInStreaming: true },
              },
            ],
          },
        },
      },
    });
    const models = await new ModelRegistry({ agentDir: dir.agentDir, env: {} }).list();
    const reasoner = models.find((m) => m.id === "deepseek-reasoner")!;
    const chat = models.find((m) => m.id === "deepseek-chat")!;
    expect(reasoner.compat).toEqual({ supportsUsageInStreaming: false, someOtherAgentsKey: 1 });
    expect(chatCompat(reasoner)).toMatchObject({
      sendReasoningContent: true,
      supportsUsageInStreaming: false,
    });
    expect(chatCompat(chat)).toMatchObject({ sendReasoningContent: false, supportsUsageInStreaming: true });
    expect(chatCompletionsRequest(reasoner, { messages: [] }).stream_options).toBeUndefined();
  });

  const invalid: [string, unknown, string][] = [
    ["provider compat not an object", { compat: [] }, "providers.p.compat must be an object"],
    [
      "a boolean setting of another type",
      { compat: { sendReasoningContent: "yes" } },
      "providers.p.compat.sendReasoningContent must be a boolean",
    ],
    [
      "an unknown maxTokensField",
      { models: [{ id: "m", compat: { maxTokensField: "tokens" } }] },
      "providers.p.models[0].compat.maxTokensField must be one of max_tokens, max_completion_tokens",
    ],
    [
      "model compat not an object",
      { models: [{ id: "m", compat: 1 }] },
      "providers.p.models[0].compat must be an object",
    ],
  ];
  for (const [name, patch, detail] of invalid) {
    test(`${name} is a ModelsConfigError naming the field`, async () => {
      await using dir = await tempAgentDir({
        models: {
          providers: {
            p: {
              baseUrl: "http://x",
              api: "openai-completions",
              models: [{ id: "m" }],
              ...(patch as object),
            },
          },
        },
      });
      const registry = new ModelRegistry({ agentDir: dir.agentDir, env: {} });
      // the file's models are left out, the others stay
      expect((await registry.list()).some((m) => m.provider === "p")).toBe(false);
      const problem = await registry.configProblem();
      expect(problem).toBeInstanceOf(ModelsConfigError);
      expect(problem?.message).toContain(`Invalid ${dir.modelsJsonPath}: ${detail}`);
    });
  }
});
