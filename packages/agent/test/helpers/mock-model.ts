import { afterAll, beforeAll, beforeEach } from "bun:test";
import { type Message, type Model, streamModel } from "@knightcode/ai";
import { type MockModelServer, type RecordedRequest, startMockModelServer } from "@knightcode/testkit";
import { Agent, type AgentOptions, type RoleMessage } from "../../src/index.ts";

/** The three wire formats the real providers speak. */
export const WIRE_APIS = ["openai-completions", "openai-responses", "anthropic-messages"] as const;

/** One of the wire formats. */
export type WireApi = (typeof WIRE_APIS)[number];

/** A model that talks to the loopback mock server through the real provider for `api`. */
export function mockModel(mock: MockModelServer, api: WireApi = "openai-completions"): Model {
  return {
    id: "mock-model",
    name: "Mock",
    api,
    provider: "mock",
    baseUrl: mock.baseUrl,
    reasoning: false,
    input: ["text", "image"],
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    contextWindow: 200_000,
    maxTokens: 8_192,
    thinkingLevels: ["off"],
  };
}

/** Starts one mock server for the file, cleared before each test; returns its accessor. */
export function useMockServer(): () => MockModelServer {
  let mock: MockModelServer | undefined;
  beforeAll(async () => {
    mock = await startMockModelServer();
  });
  afterAll(async () => {
    await mock?.close();
  });
  beforeEach(() => mock?.reset());
  return () => {
    if (!mock) throw new Error("mock server not started");
    return mock;
  };
}

/** An Agent on the real provider against the mock; retry waits are recorded, never slept. */
export function mockAgent<M extends RoleMessage = Message>(
  mock: MockModelServer,
  options: Partial<AgentOptions<M>> & { api?: WireApi } = {},
): Agent<M> {
  const { api, ...rest } = options;
  return new Agent<M>({
    model: mockModel(mock, api),
    streamFn: streamModel,
    getApiKey: () => "test-key",
    sleep: async () => {},
    ...rest,
  });
}

interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
  tool_calls?: { id: string; function: { name: string } }[];
  tool_call_id?: string;
}

/**
 * What a Chat Completions request sent, one line per message: `user: text`,
 * `assistant: text`, `assistant -> name#id`, `tool#id: text`. System prompts are left out.
 */
export function sent(request: RecordedRequest | undefined): string[] {
  if (!request) throw new Error("no such request");
  const body = request.body as { messages: ChatMessage[] };
  const text = (content: ChatMessage["content"]) =>
    typeof content === "string" ? content : (content ?? []).map((p) => p.text ?? "").join("");
  return body.messages.flatMap((m) => {
    if (m.role === "system") return [];
    if (m.role === "tool") return [`tool#${m.tool_call_id}: ${text(m.content)}`];
    const lines = text(m.content) ? [`${m.role}: ${text(m.content)}`] : [];
    for (const call of m.tool_calls ?? []) lines.push(`${m.role} -> ${call.function.name}#${call.id}`);
    return lines;
  });
}
