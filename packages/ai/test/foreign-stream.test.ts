import { describe, expect, test } from "bun:test";
import { tempAgentDir } from "@knightcode/testkit";
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  createAssistantMessageStream,
  emptyUsage,
  ModelRegistry,
  type StreamFunction,
  streamModel,
} from "../src/index.ts";

/** A partial message the foreign code fills in, as pi's providers do. */
function message(model: { api: string; provider: string; id: string }): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: Date.now(),
  };
}

/** Registers `stream` as provider "own" (api "own-api", model "m") and returns the model. */
async function ownModel(stream: StreamFunction) {
  const dir = await tempAgentDir();
  const registry = new ModelRegistry({ agentDir: dir.agentDir, env: {} });
  registry.registerProvider({
    name: "own",
    baseUrl: "http://127.0.0.1:9",
    api: "own-api",
    models: [{ id: "m", cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 } }],
    stream,
  });
  const model = (await registry.find("own", "m"))!;
  return {
    model,
    registry,
    [Symbol.asyncDispose]: async () => {
      registry.unregisterProvider("own");
      await dir[Symbol.asyncDispose]();
    },
  };
}

async function events(stream: AsyncIterable<AssistantMessageEvent>): Promise<AssistantMessageEvent[]> {
  const seen: AssistantMessageEvent[] = [];
  for await (const event of stream) seen.push(event);
  return seen;
}

describe("a provider's own stream function", () => {
  test("streamModel dispatches to it and passes its events and usage through", async () => {
    await using own = await ownModel((model) => {
      const { stream, push } = createAssistantMessageStream();
      const output = message(model);
      push({ type: "start", partial: output });
      output.content.push({ type: "text", text: "hi" });
      push({ type: "text_start", contentIndex: 0, partial: output });
      push({ type: "text_delta", contentIndex: 0, delta: "hi", partial: output });
      push({ type: "text_end", contentIndex: 0, content: "hi", partial: output });
      output.usage = { ...output.usage, input: 5, output: 1, totalTokens: 6 };
      push({ type: "done", reason: "stop", message: output });
      return stream;
    });
    expect(own.model.api).toBe("own-api");
    const seen = await events(streamModel(own.model, { messages: [] }));
    expect(seen.map((e) => e.type)).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
    const last = seen.at(-1) as Extract<AssistantMessageEvent, { type: "done" }>;
    expect(last.message.usage.input).toBe(5);
  });

  test("a synchronous throw becomes a classified error event", async () => {
    await using own = await ownModel(() => {
      throw new Error("429 Too Many Requests");
    });
    const result = await streamModel(own.model, { messages: [] }).result();
    expect(result.stopReason).toBe("error");
    expect(result.errorKind).toBe("rateLimit");
    expect(result.errorMessage).toContain("429 Too Many Requests");
  });

  test("an error event without a kind gets one from its message", async () => {
    await using own = await ownModel((model) => {
      const { stream, push } = createAssistantMessageStream();
      push({
        type: "error",
        reason: "error",
        error: { ...message(model), stopReason: "error", errorMessage: "prompt is too long: 300000 tokens" },
      });
      return stream;
    });
    const result = await streamModel(own.model, { messages: [] }).result();
    expect(result.errorKind).toBe("contextOverflow");
  });

  test("a stream that ends without done or error ends as a network error", async () => {
    await using own = await ownModel((model) => {
      const partial = message(model);
      // the foreign code's iterable stops after `start`
      return {
        result: async () => partial,
        async *[Symbol.asyncIterator]() {
          yield { type: "start", partial } as AssistantMessageEvent;
        },
      };
    });
    const seen = streamModel(own.model, { messages: [] });
    const iterator = seen[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.type).toBe("start");
    const result = await seen.result();
    expect(result.stopReason).toBe("error");
    expect(result.errorKind).toBe("network");
  });

  test("an abort ends the stream as aborted even when the function ignores the signal", async () => {
    await using own = await ownModel((model) => {
      const { stream, push } = createAssistantMessageStream();
      push({ type: "start", partial: message(model) });
      return stream; // never ends
    });
    const controller = new AbortController();
    const stream = streamModel(own.model, { messages: [] }, { signal: controller.signal });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.type).toBe("start");
    controller.abort();
    const result = await stream.result();
    expect(result.stopReason).toBe("aborted");
    expect(result.errorKind).toBeUndefined();
  });

  test("unregistering the provider removes its stream function", async () => {
    const own = await ownModel(() => {
      throw new Error("not reached");
    });
    const model = own.model;
    await own[Symbol.asyncDispose]();
    const result = await streamModel(model, { messages: [] }).result();
    expect(result.errorMessage).toBe('No provider for API "own-api" (model own/m)');
  });

  test("a stream function without an api is refused", async () => {
    await using dir = await tempAgentDir();
    const registry = new ModelRegistry({ agentDir: dir.agentDir, env: {} });
    expect(() =>
      registry.registerProvider({
        name: "x",
        baseUrl: "http://127.0.0.1:9",
        models: [{ id: "m" }],
        stream: () => {
          throw new Error("not reached");
        },
      }),
    ).toThrow('Provider "x" has a stream function but no api');
  });
});
