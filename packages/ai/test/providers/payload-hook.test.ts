import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type MockModelServer, startMockModelServer, textReply } from "@knightcode/testkit";
import { type Model, streamModel } from "../../src/index.ts";

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
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 1_000,
    thinkingLevels: ["off"],
  };
}

describe("onPayload", () => {
  for (const api of APIS) {
    test(`${api}: sees the request body and a returned value replaces it; undefined keeps it`, async () => {
      const seen: unknown[] = [];
      mock.enqueue(textReply("one"), textReply("two"));
      const context = { messages: [{ role: "user" as const, content: "hi", timestamp: 1 }] };
      const first = streamModel(modelFor(api), context, {
        apiKey: "k",
        onPayload: (payload) => {
          seen.push(payload);
          return { ...(payload as object), metadata_tag: "changed" };
        },
      });
      for await (const _ of first) {
        // drain
      }
      const second = streamModel(modelFor(api), context, { apiKey: "k", onPayload: () => undefined });
      for await (const _ of second) {
        // drain
      }
      const [changed, kept] = mock.requests.slice(-2).map((r) => r.body as Record<string, unknown>);
      expect((seen[0] as { model: string }).model).toBe("mock-model");
      expect(changed!.metadata_tag).toBe("changed");
      expect(kept!.metadata_tag).toBeUndefined();
      expect(kept!.model).toBe("mock-model");
    });
  }
});

describe("onResponse", () => {
  for (const api of APIS) {
    test(`${api}: sees the status and lower-case headers before the first event; a failed status skips it`, async () => {
      const context = { messages: [{ role: "user" as const, content: "hi", timestamp: 1 }] };
      const order: string[] = [];
      const responses: { status: number; headers: Record<string, string> }[] = [];
      mock.enqueue(textReply("fine"), { error: { kind: "auth" } });
      const ok = streamModel(modelFor(api), context, {
        apiKey: "k",
        onResponse: (response) => {
          responses.push(response);
          order.push("response");
        },
      });
      for await (const event of ok) if (event.type !== "start") order.push(event.type);
      expect(responses).toHaveLength(1);
      expect(responses[0]!.status).toBe(200);
      expect(responses[0]!.headers["content-type"]).toContain("text/event-stream");
      expect(order[0]).toBe("response");
      const failed = streamModel(modelFor(api), context, {
        apiKey: "k",
        onResponse: (response) => {
          responses.push(response);
        },
      });
      const final = await failed.result();
      expect(final.stopReason).toBe("error");
      expect(responses).toHaveLength(1);
    });
  }
});
