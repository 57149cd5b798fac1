import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type MockModelServer, type MockScript, startMockModelServer } from "@knightcode/testkit";
import {
  type AssistantMessageEvent,
  type Context,
  type ErrorKind,
  type Model,
  streamModel,
} from "../../src/index.ts";

let mock: MockModelServer;
beforeAll(async () => {
  mock = await startMockModelServer();
});
afterAll(async () => {
  await mock.close();
});

const APIS = ["openai-completions", "openai-responses", "anthropic-messages"] as const;

function modelFor(api: (typeof APIS)[number]): Model {
  return {
    id: "mock-model",
    name: "Mock",
    api,
    provider: "mock",
    baseUrl: mock.baseUrl,
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    contextWindow: 200_000,
    maxTokens: 8_192,
    thinkingLevels: ["off", "minimal", "low", "medium", "high"],
  };
}

const context: Context = {
  systemPrompt: "You are a test.",
  messages: [{ role: "user", content: "hello", timestamp: 1 }],
  tools: [
    {
      name: "ls",
      description: "List a directory",
      parameters: { type: "object", properties: { path: { type: "string" } } },
    },
  ],
};

async function run(api: (typeof APIS)[number], script: MockScript, signal?: AbortSignal) {
  mock.enqueue(script);
  const stream = streamModel(modelFor(api), context, { apiKey: "test-key", signal, thinkingLevel: "low" });
  const events: AssistantMessageEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, message: await stream.result() };
}

for (const api of APIS) {
  describe(`${api} over the mock wire format`, () => {
    test("streams text in deltas and ends with done/stop", async () => {
      const { events, message } = await run(api, {
        steps: [{ type: "text", text: "Hello there, world", deltas: 4 }],
      });
      expect(events[0]?.type).toBe("start");
      const deltas = events.filter((e) => e.type === "text_delta");
      expect(deltas.length).toBe(4);
      expect(events.at(-1)).toMatchObject({ type: "done", reason: "stop" });
      expect(message.content).toMatchObject([{ type: "text", text: "Hello there, world" }]);
      expect(message.stopReason).toBe("stop");
      expect(message.api).toBe(api);
    });

    test("a 20,000-delta reply with multi-byte text arrives whole and in order", async () => {
      // Large enough to span many socket reads, so events and UTF-8 characters are cut
      // between chunks; every delta must come through once, in order.
      const piece = "é😀ab";
      const { events, message } = await run(api, {
        steps: [{ type: "text", text: piece.repeat(20_000), deltas: 20_000 }],
      });
      const deltas = events.filter((e) => e.type === "text_delta");
      expect(deltas.length).toBe(20_000);
      expect(deltas.every((e) => e.type === "text_delta" && e.delta === piece)).toBe(true);
      expect(message.content).toMatchObject([{ type: "text", text: piece.repeat(20_000) }]);
      expect(message.stopReason).toBe("stop");
    });

    test("sends the API key, model, system prompt, user text and tools", async () => {
      const before = mock.requests.length;
      await run(api, { steps: [{ type: "text", text: "ok" }] });
      const request = mock.requests[before]!;
      const auth = request.headers.authorization ?? request.headers["x-api-key"];
      expect(auth).toContain("test-key");
      const body = request.body as Record<string, unknown>;
      expect(body.model).toBe("mock-model");
      expect(body.stream).toBe(true);
      expect(request.rawBody).toContain("You are a test.");
      expect(request.rawBody).toContain("hello");
      expect(request.rawBody).toContain('"ls"');
    });

    test("streams reasoning as thinking content before the text", async () => {
      const { events, message } = await run(api, {
        steps: [
          { type: "reasoning", text: "Let me think.", deltas: 3 },
          { type: "text", text: "Answer." },
        ],
      });
      expect(events.filter((e) => e.type === "thinking_delta").length).toBe(3);
      expect(message.content[0]).toMatchObject({ type: "thinking", thinking: "Let me think." });
      expect(message.content[1]).toMatchObject({ type: "text", text: "Answer." });
    });

    test("parallel tool calls arrive complete, in order, with stop reason toolUse", async () => {
      const { events, message } = await run(api, {
        steps: [
          { type: "toolCall", id: "call_a", name: "ls", arguments: { path: "src" }, deltas: 3 },
          {
            type: "toolCall",
            id: "call_b",
            name: "read",
            arguments: { path: "README.md", limit: 5 },
            deltas: 2,
          },
        ],
      });
      const ends = events.filter((e) => e.type === "toolcall_end");
      expect(ends.map((e) => (e.type === "toolcall_end" ? e.toolCall.id : ""))).toEqual(["call_a", "call_b"]);
      expect(message.content).toMatchObject([
        { type: "toolCall", id: "call_a", name: "ls", arguments: { path: "src" } },
        { type: "toolCall", id: "call_b", name: "read", arguments: { path: "README.md", limit: 5 } },
      ]);
      expect(message.stopReason).toBe("toolUse");
    });

    test("reports usage and the cost computed from the model's prices", async () => {
      const { message } = await run(api, {
        steps: [{ type: "text", text: "ok" }],
        usage: { input: 1_000_000, output: 200_000, cacheRead: 100_000 },
      });
      expect(message.usage.input).toBe(1_000_000);
      expect(message.usage.output).toBe(200_000);
      expect(message.usage.cacheRead).toBe(100_000);
      expect(message.usage.totalTokens).toBe(1_300_000);
      expect(message.usage.cost.input).toBeCloseTo(3);
      expect(message.usage.cost.output).toBeCloseTo(3);
      expect(message.usage.cost.cacheRead).toBeCloseTo(0.03);
      expect(message.usage.cost.total).toBeCloseTo(6.03);
    });

    test("a reply cut for length ends with stop reason length", async () => {
      const { message } = await run(api, {
        steps: [{ type: "text", text: "partial" }],
        stopReason: "length",
      });
      expect(message.stopReason).toBe("length");
      expect(message.content).toMatchObject([{ type: "text", text: "partial" }]);
    });

    const errorCases: { script: MockScript; kind: ErrorKind }[] = [
      { script: { error: { kind: "auth" } }, kind: "auth" },
      { script: { error: { kind: "rateLimit", retryAfterSeconds: 7 } }, kind: "rateLimit" },
      { script: { error: { kind: "contextOverflow" } }, kind: "contextOverflow" },
      { script: { error: { kind: "server" } }, kind: "provider" },
      { script: { error: { kind: "overloaded" } }, kind: "provider" },
      { script: { error: { kind: "badRequest" } }, kind: "other" },
      {
        script: { steps: [{ type: "text", text: "a b c d e f", deltas: 6 }], cutAfterEvents: 4 },
        kind: "network",
      },
    ];
    for (const { script, kind } of errorCases) {
      const label = script.error?.kind ?? "stream cut";
      test(`${label} is classified as ${kind}`, async () => {
        const { events, message } = await run(api, script);
        const last = events.at(-1);
        expect(last?.type).toBe("error");
        expect(message.stopReason).toBe("error");
        expect(message.errorKind).toBe(kind);
        expect(message.errorMessage).toBeTruthy();
        expect(events.filter((e) => e.type === "done" || e.type === "error").length).toBe(1);
      });
    }

    test("429 surfaces retry-after on the error event", async () => {
      const { events } = await run(api, { error: { kind: "rateLimit", retryAfterSeconds: 7 } });
      const last = events.at(-1);
      expect(last?.type === "error" ? last.retryAfterMs : undefined).toBe(7000);
    });

    test("a retry after 429 succeeds with the next scripted reply", async () => {
      const first = await run(api, { error: { kind: "rateLimit", retryAfterSeconds: 1 } });
      expect(first.message.errorKind).toBe("rateLimit");
      const second = await run(api, { steps: [{ type: "text", text: "recovered" }] });
      expect(second.message.stopReason).toBe("stop");
      expect(second.message.content).toMatchObject([{ type: "text", text: "recovered" }]);
    });

    test("abort mid-stream ends with reason aborted and keeps the partial text", async () => {
      const controller = new AbortController();
      // Six events reach the first text delta in every format; the mock then holds the stream.
      mock.enqueue({ steps: [{ type: "text", text: "one two three four", deltas: 4 }], stallAfterEvents: 6 });
      const stream = streamModel(modelFor(api), context, { apiKey: "test-key", signal: controller.signal });
      const events: AssistantMessageEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        if (event.type === "text_delta") controller.abort();
      }
      const message = await stream.result();
      expect(events.at(-1)).toMatchObject({ type: "error", reason: "aborted" });
      expect(message.stopReason).toBe("aborted");
      expect(message.errorKind).toBeUndefined();
      const text = message.content.find((c) => c.type === "text");
      expect(text?.type === "text" ? text.text.length : 0).toBeGreaterThan(0);
    });

    test("a request aborted before it starts never reaches the server", async () => {
      const before = mock.requests.length;
      const message = await streamModel(modelFor(api), context, {
        apiKey: "test-key",
        signal: AbortSignal.abort(),
      }).result();
      expect(message.stopReason).toBe("aborted");
      expect(mock.requests.length).toBe(before);
    });
  });
}

describe("credentials at the provider boundary", () => {
  test("a hosted vendor URL without a key fails as auth without a request", async () => {
    const model: Model = { ...modelFor("anthropic-messages"), provider: "anthropic", baseUrl: undefined };
    const message = await streamModel(model, context).result();
    expect(message.errorKind).toBe("auth");
  });

  test("an unknown api yields an error event, not a throw", async () => {
    const model = { ...modelFor("openai-completions"), api: "nope" as Model["api"] };
    const message = await streamModel(model, context).result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("nope");
  });
});

describe("errors sent inside the stream", () => {
  const cases: { kind: "overloaded" | "server" | "rateLimit"; expected: ErrorKind }[] = [
    { kind: "overloaded", expected: "provider" },
    { kind: "server", expected: "provider" },
    { kind: "rateLimit", expected: "rateLimit" },
  ];
  for (const api of APIS) {
    for (const { kind, expected } of cases) {
      test(`${api}: an in-stream ${kind} error after some text is classified as ${expected}`, async () => {
        const { events, message } = await run(api, {
          steps: [{ type: "text", text: "partial answer", deltas: 2 }],
          streamError: { kind },
        });
        expect(events.filter((e) => e.type === "text_delta").length).toBe(2);
        expect(events.at(-1)?.type).toBe("error");
        expect(message.errorKind).toBe(expected);
      });
    }
  }
});
