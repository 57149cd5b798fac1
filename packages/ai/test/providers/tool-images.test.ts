import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type MockModelServer,
  type MockScript,
  type RecordedRequest,
  startMockModelServer,
} from "@knightcode/testkit";
import {
  type AssistantMessage,
  type Context,
  emptyUsage,
  type ImageContent,
  type Model,
  streamModel,
  type ToolResultMessage,
} from "../../src/index.ts";
import { chatCompletionsRequest, responsesRequest } from "../../src/providers/built-in.ts";

// Tool results with images: the OpenAI formats send a tool's output as text and its images
// in a user message, which must come after every tool output of the assistant turn.

const model = (api: "openai-completions" | "openai-responses", baseUrl?: string): Model => ({
  id: "mock-model",
  name: "Mock",
  api,
  provider: "mock",
  ...(baseUrl ? { baseUrl } : {}),
  reasoning: false,
  input: ["text", "image"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 200_000,
  maxTokens: 8_192,
  thinkingLevels: ["off"],
});

const image = (data: string): ImageContent => ({ type: "image", data, mimeType: "image/png" });
const assistant = (api: string, calls: string[]): AssistantMessage => ({
  role: "assistant",
  content: calls.map((id) => ({ type: "toolCall", id, name: "read", arguments: { path: `${id}.png` } })),
  api,
  provider: "mock",
  model: "mock-model",
  usage: emptyUsage(),
  stopReason: "toolUse",
  timestamp: 2,
});
const result = (toolCallId: string, content: ToolResultMessage["content"]): ToolResultMessage => ({
  role: "toolResult",
  toolCallId,
  toolName: "read",
  content,
  isError: false,
  timestamp: 3,
});

/** Two parallel `read` calls that both return images, then the user speaks again. */
function parallelImages(api: string, order: "call order" | "reversed" = "call order"): Context {
  const results = [
    result("call_a", [{ type: "text", text: "Read image a.png" }, image("QUFB")]),
    result("call_b", [image("QkJC"), image("QkJD")]),
  ];
  return {
    systemPrompt: "sys",
    messages: [
      { role: "user", content: "look at both", timestamp: 1 },
      assistant(api, ["call_a", "call_b"]),
      ...(order === "call order" ? results : results.reverse()),
      { role: "user", content: "next", timestamp: 4 },
    ],
  };
}

type ChatMessage = {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string }[];
};

/** Chat Completions' rule: an assistant's tool calls are followed directly by one tool message each. */
function chatOrderProblem(messages: ChatMessage[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === "tool") {
      const before = messages[i - 1]?.role;
      if (before !== "tool" && before !== "assistant") return `tool message ${i} follows a ${before} message`;
    }
    const calls = message.role === "assistant" ? (message.tool_calls ?? []) : [];
    const following = messages.slice(i + 1, i + 1 + calls.length);
    const answered = following.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
    if (calls.some((c) => !answered.includes(c.id))) {
      return `tool calls of message ${i} are not directly followed by their tool messages`;
    }
  }
  return undefined;
}

type ResponsesItem = { type?: string; role?: string; call_id?: string; output?: unknown; content?: unknown };

/** Our rule for Responses: outputs follow their calls, and nothing else comes before they all did. */
function responsesOrderProblem(input: ResponsesItem[]): string | undefined {
  const open = new Set<string>();
  for (const [i, item] of input.entries()) {
    if (item.type === "function_call") open.add(item.call_id!);
    else if (item.type === "function_call_output") {
      if (!open.delete(item.call_id!)) return `output ${i} has no earlier call`;
    } else if (open.size > 0) return `item ${i} comes before the outputs of ${[...open].join(", ")}`;
  }
  return undefined;
}

const IMAGES_MESSAGE = [
  { type: "text", text: "Image returned by the read call call_a:" },
  { type: "image_url", image_url: { url: "data:image/png;base64,QUFB" } },
  { type: "text", text: "Images returned by the read call call_b:" },
  { type: "image_url", image_url: { url: "data:image/png;base64,QkJC" } },
  { type: "image_url", image_url: { url: "data:image/png;base64,QkJD" } },
];
const IMAGES_INPUT = [
  { type: "input_text", text: "Image returned by the read call call_a:" },
  { type: "input_image", image_url: "data:image/png;base64,QUFB", detail: "auto" },
  { type: "input_text", text: "Images returned by the read call call_b:" },
  { type: "input_image", image_url: "data:image/png;base64,QkJC", detail: "auto" },
  { type: "input_image", image_url: "data:image/png;base64,QkJD", detail: "auto" },
];

describe("chat completions: images from parallel tool results", () => {
  test("both tool messages follow the assistant; one user message with the images comes after the last", () => {
    const messages = chatCompletionsRequest(model("openai-completions"), parallelImages("openai-completions"))
      .messages as ChatMessage[];
    expect(messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "user",
      "user",
    ]);
    expect(messages.slice(3, 5)).toEqual([
      { role: "tool", tool_call_id: "call_a", content: "Read image a.png" },
      { role: "tool", tool_call_id: "call_b", content: "(see attached image)" },
    ]);
    expect(messages[5]).toEqual({ role: "user", content: IMAGES_MESSAGE });
    expect(messages[6]).toEqual({ role: "user", content: "next" });
    expect(chatOrderProblem(messages)).toBeUndefined();
  });

  test("the images go in call order even when the results were stored in another order", () => {
    const messages = chatCompletionsRequest(
      model("openai-completions"),
      parallelImages("openai-completions", "reversed"),
    ).messages as ChatMessage[];
    expect(messages.map((m) => m.tool_call_id ?? m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "call_b",
      "call_a",
      "user",
      "user",
    ]);
    expect(messages[5]).toEqual({ role: "user", content: IMAGES_MESSAGE });
    expect(chatOrderProblem(messages)).toBeUndefined();
  });

  test("each assistant turn's images stay with that turn; results without images add no message", () => {
    const context: Context = {
      messages: [
        { role: "user", content: "go", timestamp: 1 },
        assistant("openai-completions", ["call_1", "call_2"]),
        result("call_1", [{ type: "text", text: "plain" }]),
        result("call_2", [image("MQ==")]),
        assistant("openai-completions", ["call_3"]),
        result("call_3", [{ type: "text", text: "plain too" }]),
        assistant("openai-completions", ["call_4", "call_5"]),
        result("call_4", [image("NA==")]),
        result("call_5", [{ type: "text", text: "no image" }]),
      ],
    };
    const messages = chatCompletionsRequest(model("openai-completions"), context).messages as ChatMessage[];
    expect(messages.map((m) => m.tool_call_id ?? m.role)).toEqual([
      "user",
      "assistant",
      "call_1",
      "call_2",
      "user",
      "assistant",
      "call_3",
      "assistant",
      "call_4",
      "call_5",
      "user",
    ]);
    expect(JSON.stringify(messages[4])).toContain("MQ==");
    expect(JSON.stringify(messages[10])).toContain("NA==");
    expect(chatOrderProblem(messages)).toBeUndefined();
  });
});

describe("responses: images from parallel tool results", () => {
  test("both outputs follow their calls; the image input comes after the last output", () => {
    const input = responsesRequest(model("openai-responses"), parallelImages("openai-responses"))
      .input as ResponsesItem[];
    expect(input.map((i) => i.type ?? i.role)).toEqual([
      "user",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
      "user",
      "user",
    ]);
    expect(input.slice(3, 5)).toEqual([
      { type: "function_call_output", call_id: "call_a", output: "Read image a.png" },
      { type: "function_call_output", call_id: "call_b", output: "(see attached image)" },
    ]);
    expect(input[5]).toEqual({ role: "user", content: IMAGES_INPUT });
    expect(responsesOrderProblem(input)).toBeUndefined();
  });

  test("the images go in call order even when the results were stored in another order", () => {
    const input = responsesRequest(model("openai-responses"), parallelImages("openai-responses", "reversed"))
      .input as ResponsesItem[];
    expect(input.map((i) => i.call_id ?? i.role)).toEqual([
      "user",
      "call_a",
      "call_b",
      "call_b",
      "call_a",
      "user",
      "user",
    ]);
    expect(input[5]).toEqual({ role: "user", content: IMAGES_INPUT });
    expect(responsesOrderProblem(input)).toBeUndefined();
  });
});

describe("round trip against the mock: two parallel calls that both return images", () => {
  let mock: MockModelServer;
  beforeAll(async () => {
    mock = await startMockModelServer();
  });
  afterAll(async () => {
    await mock.close();
  });

  /** Answers like the vendor would: a 400 when the order rule is broken, else a reply. */
  function vendorCheck(check: (request: RecordedRequest) => string | undefined) {
    return (request: RecordedRequest): MockScript => {
      const problem = check(request);
      return problem
        ? { error: { kind: "badRequest", message: problem } }
        : { steps: [{ type: "text", text: "I see both images." }] };
    };
  }

  const cases = [
    {
      api: "openai-completions" as const,
      check: (r: RecordedRequest) => chatOrderProblem((r.body as { messages: ChatMessage[] }).messages),
      images: (r: RecordedRequest) => (r.body as { messages: ChatMessage[] }).messages.at(-2)?.content,
      expected: IMAGES_MESSAGE,
    },
    {
      api: "openai-responses" as const,
      check: (r: RecordedRequest) => responsesOrderProblem((r.body as { input: ResponsesItem[] }).input),
      images: (r: RecordedRequest) => (r.body as { input: ResponsesItem[] }).input.at(-2)?.content,
      expected: IMAGES_INPUT,
    },
  ];

  for (const { api, check, images, expected } of cases) {
    test(`${api}: the request passes the order check and carries every image in call order`, async () => {
      mock.enqueue(vendorCheck(check));
      const before = mock.requests.length;
      const context = parallelImages(api);
      const message = await streamModel(model(api, mock.baseUrl), context, { apiKey: "test-key" }).result();
      expect(message.errorMessage).toBeUndefined();
      expect(message.stopReason).toBe("stop");
      expect(message.content).toMatchObject([{ type: "text", text: "I see both images." }]);
      const request = mock.requests[before]!;
      expect(check(request)).toBeUndefined();
      expect(images(request)).toEqual(expected);
    });
  }

  test("the order check does reject the old layout (an image message between two tool messages)", async () => {
    mock.enqueue(vendorCheck((r) => chatOrderProblem((r.body as { messages: ChatMessage[] }).messages)));
    // What the builder used to send: assistant, tool#a, user(images), tool#b.
    const broken: ChatMessage[] = [
      { role: "user", content: "look at both" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_a" }, { id: "call_b" }] },
      { role: "tool", tool_call_id: "call_a", content: "Read image a.png" },
      { role: "user", content: IMAGES_MESSAGE.slice(0, 2) },
      { role: "tool", tool_call_id: "call_b", content: "(see attached image)" },
    ];
    const response = await fetch(`${mock.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer test-key" },
      body: JSON.stringify({ model: "mock-model", stream: true, messages: broken }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("not directly followed by their tool messages");
  });
});
