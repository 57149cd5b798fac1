/**
 * The recorded-stream corpus (testkit `STREAM_CORPUS`) through the real providers: each case's
 * replies are replayed over loopback HTTP in many small writes cut inside lines and inside
 * UTF-8 characters; after a reply with tool calls the next request carries one result per
 * call and the replay server checks it (pairing, DeepSeek's reasoning_content, Gemini's
 * thought signatures) before it answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  CORPUS_PROMPT,
  corpusApi,
  type ExpectedReply,
  type ReplayServer,
  STREAM_CORPUS,
  type StreamCase,
  startReplayServer,
} from "@knightcode/testkit";
import {
  type AssistantMessage,
  type Context,
  type Message,
  type Model,
  streamModel,
} from "../../src/index.ts";

let replay: ReplayServer;
beforeAll(async () => {
  replay = await startReplayServer();
});
afterAll(async () => {
  await replay.close();
});

const TOOLS: Context["tools"] = [
  {
    name: "read",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
  {
    name: "ls",
    description: "List a folder",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
];

function modelOf(c: StreamCase, compat?: Record<string, unknown>): Model {
  const merged = { ...c.compat, ...compat };
  return {
    id: c.name,
    name: c.name,
    api: corpusApi(c),
    provider: c.provider,
    baseUrl: replay.baseUrl,
    reasoning: c.reasoning ?? false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 4_096,
    thinkingLevels: c.reasoning ? ["off", "low", "medium", "high"] : ["off"],
    ...(Object.keys(merged).length > 0 ? { compat: merged } : {}),
  };
}

/** What a final message comes to, in the corpus's terms. */
function outcome(message: AssistantMessage): ExpectedReply {
  const text = message.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("");
  const thinking = message.content.flatMap((c) => (c.type === "thinking" ? [c.thinking] : []));
  const calls = message.content.flatMap((c) =>
    c.type === "toolCall" ? [{ name: c.name, arguments: c.arguments }] : [],
  );
  return {
    text,
    ...(thinking.length > 0 ? { reasoning: thinking.join("") } : {}),
    ...(calls.length > 0 ? { toolCalls: calls } : {}),
    usage: { input: message.usage.input, output: message.usage.output, cacheRead: message.usage.cacheRead },
    stopReason: message.stopReason as ExpectedReply["stopReason"],
    ...(message.errorKind ? { errorKind: message.errorKind } : {}),
  };
}

function expected(reply: ExpectedReply, actual: ExpectedReply): ExpectedReply {
  // Usage is compared only where the recording reports it.
  const { usage, ...rest } = reply;
  return {
    ...rest,
    usage: usage ? { cacheRead: 0, ...usage } : actual.usage!,
  };
}

/** Drives every reply of a case; returns the final messages and the requests made. */
async function drive(c: StreamCase, compat?: Record<string, unknown>) {
  replay.reset();
  const model = modelOf(c, compat);
  const messages: Message[] = [{ role: "user", content: CORPUS_PROMPT, timestamp: 1 }];
  const finals: AssistantMessage[] = [];
  for (const reply of c.replies) {
    replay.enqueue(reply);
    const stream = streamModel(
      model,
      { systemPrompt: "You are a test.", messages, tools: TOOLS },
      { apiKey: "replay-key", ...(c.reasoning ? { thinkingLevel: "low" as const } : {}) },
    );
    for await (const _ of stream) {
      // drain: the events are the providers' contract, checked elsewhere
    }
    const message = await stream.result();
    finals.push(message);
    if (message.stopReason !== "toolUse") break;
    messages.push(message);
    for (const block of message.content) {
      if (block.type !== "toolCall") continue;
      messages.push({
        role: "toolResult",
        toolCallId: block.id,
        toolName: block.name,
        content: [{ type: "text", text: `result of ${block.name}` }],
        isError: false,
        timestamp: 2,
      });
    }
  }
  return { finals, requests: replay.requests.length, rejections: [...replay.rejections] };
}

test("the corpus holds at least 30 shapes, each naming its server and public source", () => {
  expect(STREAM_CORPUS.length).toBeGreaterThanOrEqual(30);
  expect(new Set(STREAM_CORPUS.map((c) => c.name)).size).toBe(STREAM_CORPUS.length);
  for (const c of STREAM_CORPUS) {
    for (const reply of c.replies) {
      expect(reply.stream.server.length).toBeGreaterThan(3);
      expect(reply.stream.source).toMatch(/^https:\/\//);
    }
  }
});

describe("recorded real-server streams through the providers", () => {
  for (const c of STREAM_CORPUS) {
    test(`${c.name} (${c.replies[0]!.stream.server})`, async () => {
      const { finals, requests, rejections } = await drive(c);
      expect(rejections).toEqual([]);
      expect(requests).toBe(c.replies.length);
      expect(finals.length).toBe(c.replies.length);
      for (const [i, reply] of c.replies.entries()) {
        const actual = outcome(finals[i]!);
        expect(actual).toEqual(expected(reply.expect, actual));
        // Every call has a distinct, non-empty id (generated when the server sent none).
        const ids = finals[i]!.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : []));
        expect(ids.every((id) => id.length > 0)).toBe(true);
        expect(new Set(ids).size).toBe(ids.length);
      }
      // Every recording left in pieces: at least one cut per line (see replay-server.test.ts).
      for (const [index, count] of replay.chunkCounts) {
        const lines = c.replies[index]!.stream.body.split(/\r\n|\n|\r/).filter((l) => l.length > 1);
        expect(count).toBeGreaterThan(lines.length);
      }
    });
  }
});

describe("the replay server accepts the follow-up only when the round-trip came back", () => {
  const deepseek = STREAM_CORPUS.find((c) => c.name === "deepseek-thinking-tool-call")!;
  const gemini = STREAM_CORPUS.find((c) => c.name === "gemini-parallel-no-index")!;

  test("DeepSeek without sendReasoningContent: 400, DeepSeek's own words, classified other", async () => {
    const { finals, rejections } = await drive(deepseek, { sendReasoningContent: false });
    expect(rejections.map((r) => r.message)).toEqual([
      "The reasoning_content in the thinking mode must be passed back to the API.",
    ]);
    expect(finals[1]!.stopReason).toBe("error");
    expect(finals[1]!.errorKind).toBe("other");
    expect(finals[1]!.errorMessage).toContain("reasoning_content");
  });

  test("Gemini without sendThoughtSignatures: 400 naming the missing thought_signature", async () => {
    const { finals, rejections } = await drive(gemini, { sendThoughtSignatures: false });
    expect(rejections).toHaveLength(1);
    expect(rejections[0]!.message).toContain("missing a thought_signature");
    expect(finals[1]!.stopReason).toBe("error");
  });

  test("the signature rides only on the call that carried it; reasoning_content only on tool-calling turns", async () => {
    await drive(gemini);
    const sent = replay.requests[1]!.body as { messages: { role: string; tool_calls?: unknown[] }[] };
    const assistant = sent.messages.find((m) => m.role === "assistant")!;
    expect(assistant.tool_calls).toMatchObject([
      { function: { name: "read" }, extra_content: { google: { thought_signature: expect.any(String) } } },
      { function: { name: "ls" } },
    ]);
    expect((assistant.tool_calls![1] as Record<string, unknown>).extra_content).toBeUndefined();
    expect("reasoning_content" in assistant).toBe(false);
  });
});
