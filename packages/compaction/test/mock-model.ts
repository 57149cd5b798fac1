/** A real `@knightcode/ai` model pointed at the testkit's loopback mock server. */
import { complete, type Model } from "@knightcode/ai";
import { type MockModelServer, type RecordedRequest, startMockModelServer } from "@knightcode/testkit";
import type { SummaryModel } from "../src/summarize.ts";

export interface MockSummarizer extends AsyncDisposable {
  server: MockModelServer;
  model: Model;
  summarizer: SummaryModel;
}

export async function mockSummarizer(overrides: Partial<Model> = {}): Promise<MockSummarizer> {
  const server = await startMockModelServer();
  const model: Model = {
    id: "mock-model",
    name: "Mock",
    api: "anthropic-messages",
    provider: "mock-anthropic",
    baseUrl: server.baseUrl,
    reasoning: false,
    input: ["text"],
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    contextWindow: 200_000,
    maxTokens: 64_000,
    thinkingLevels: ["off"],
    ...overrides,
  };
  return {
    server,
    model,
    summarizer: { model, complete, apiKey: "test-key" },
    [Symbol.asyncDispose]: () => server.close(),
  };
}

/** The single user prompt text of a recorded Anthropic request. */
export function promptOf(request: RecordedRequest): string {
  const body = request.body as { messages: { content: { type: string; text?: string }[] }[] };
  return body.messages.map((m) => m.content.map((c) => c.text ?? "").join("")).join("\n");
}

export function bodyOf(request: RecordedRequest): { max_tokens: number; system?: { text: string }[] } {
  return request.body as { max_tokens: number; system?: { text: string }[] };
}
