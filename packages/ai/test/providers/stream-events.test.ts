import { describe, expect, test } from "bun:test";
import { APIError as AnthropicAPIError } from "@anthropic-ai/sdk";
import { APIError as OpenAIAPIError } from "openai";
import { describeFailure } from "../../src/index.ts";
import { readAnthropicEvents } from "../../src/providers/anthropic-events.ts";
import { readOpenAIEvents } from "../../src/providers/openai-events.ts";
import { requestSignal } from "../../src/providers/shared.ts";

/** A streaming response over `text`, split into two chunks mid-way; records cancellation. */
function sseResponse(text: string) {
  const state = { cancelled: false };
  const bytes = new TextEncoder().encode(text);
  const chunks = [bytes.subarray(0, bytes.length >> 1), bytes.subarray(bytes.length >> 1)];
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks.shift();
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  const response = new Response(body, {
    headers: { "content-type": "text/event-stream", "x-request-id": "r1" },
  });
  return { response, state };
}

async function collect(
  read: (response: Response, signal: undefined, onData: (data: unknown) => void) => Promise<unknown>,
  text: string,
) {
  const { response, state } = sseResponse(text);
  const seen: unknown[] = [];
  let error: unknown;
  await read(response, undefined, (data) => seen.push(data)).catch((e: unknown) => {
    error = e;
  });
  return { seen, error, cancelled: state.cancelled };
}

describe("OpenAI event bodies", () => {
  test("reading stops at [DONE]; what follows is not read", async () => {
    const { seen, error, cancelled } = await collect(
      readOpenAIEvents,
      'data: {"a":1}\n\ndata: {"a":2}\r\n\r\ndata: [DONE]\n\ndata: {"a":3}\n\n',
    );
    expect(error).toBeUndefined();
    expect(seen).toEqual([{ a: 1 }, { a: 2 }]);
    expect(cancelled).toBe(true);
  });

  test("broken JSON is the SDK's SyntaxError", async () => {
    const { error } = await collect(readOpenAIEvents, "data: {oops\n\n");
    expect(error).toBeInstanceOf(SyntaxError);
    expect((error as Error).message).toBe("Error reading response: malformed server-sent event JSON.");
  });

  test("an error payload becomes the SDK's APIError, classified by its code", async () => {
    const { seen, error } = await collect(
      readOpenAIEvents,
      'data: {"a":1}\n\ndata: {"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}\n\n',
    );
    expect(seen).toEqual([{ a: 1 }]);
    expect(error).toBeInstanceOf(OpenAIAPIError);
    const failure = describeFailure(error);
    expect(failure.kind).toBe("rateLimit");
    expect(failure.message).toBe("Rate limit reached");
    expect(failure.status).toBeUndefined();
  });

  test("an `event: error` becomes an APIError carrying the whole payload", async () => {
    const { error } = await collect(
      readOpenAIEvents,
      'event: error\ndata: {"type":"error","code":"server_error","message":"boom"}\n\n',
    );
    expect(error).toBeInstanceOf(OpenAIAPIError);
    expect(describeFailure(error)).toMatchObject({ kind: "provider", message: "boom" });
  });
});

describe("OpenAI event bodies from llama.cpp and friends", () => {
  test("llama.cpp's `error:` line is an APIError classified like an HTTP 400 of its text", async () => {
    const { seen, error } = await collect(
      readOpenAIEvents,
      'data: {"a":1}\n\nerror: {"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":14429,"n_ctx":8192}\n\n',
    );
    expect(seen).toEqual([{ a: 1 }]);
    expect(error).toBeInstanceOf(OpenAIAPIError);
    expect(describeFailure(error)).toMatchObject({
      kind: "contextOverflow",
      message: "the request exceeds the available context size, try increasing it",
    });
  });

  test("an error event whose text is not JSON still reports that text", async () => {
    const { error } = await collect(readOpenAIEvents, "event: error\ndata: upstream went away\n\n");
    expect(error).toBeInstanceOf(OpenAIAPIError);
    expect(describeFailure(error).message).toBe("upstream went away");
  });

  test("the reader says whether the body ended with [DONE]", async () => {
    const { response: done } = sseResponse('data: {"a":1}\n\ndata: [DONE]\n\n');
    expect(await readOpenAIEvents(done, undefined, () => {})).toBe(true);
    const { response: cut } = sseResponse('data: {"a":1}\n\n');
    expect(await readOpenAIEvents(cut, undefined, () => {})).toBe(false);
  });
});

describe("Anthropic event bodies", () => {
  test("ping, data-less events and unnamed events without a type are skipped", async () => {
    const { seen, error } = await collect(
      readAnthropicEvents,
      'event: ping\ndata: {"type":"ping"}\n\ndata: {"x":1}\n\nevent: message_start\n\nevent: message_start\ndata: {"type":"message_start"}\n\n',
    );
    expect(error).toBeUndefined();
    expect(seen).toEqual([{ type: "message_start" }]);
  });

  test("without `event:` lines (some proxies) each event is read by the type in its data", async () => {
    const { seen, error } = await collect(
      readAnthropicEvents,
      'data: {"type":"message_start"}\n\ndata: {"type":"ping"}\n\ndata: not json\n\ndata: {"type":"message_stop"}\n\n',
    );
    expect(error).toBeUndefined();
    expect(seen).toEqual([{ type: "message_start" }, { type: "message_stop" }]);
  });

  test("an unnamed event of type error is the SDK's APIError too", async () => {
    const { error } = await collect(
      readAnthropicEvents,
      'data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
    expect(error).toBeInstanceOf(AnthropicAPIError);
    expect(describeFailure(error)).toMatchObject({ kind: "provider", message: "Overloaded" });
  });

  test("an `event: error` becomes the SDK's APIError with the vendor's error type", async () => {
    const { error } = await collect(
      readAnthropicEvents,
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
    expect(error).toBeInstanceOf(AnthropicAPIError);
    expect((error as { type?: unknown }).type).toBe("overloaded_error");
    expect(describeFailure(error)).toMatchObject({ kind: "provider", message: "Overloaded" });
  });

  test("broken JSON propagates as a SyntaxError", async () => {
    const { error } = await collect(readAnthropicEvents, "event: message_start\ndata: {oops\n\n");
    expect(error).toBeInstanceOf(SyntaxError);
  });
});

describe("requestSignal", () => {
  test("follows the caller's abort, with its reason", () => {
    const parent = new AbortController();
    const { signal } = requestSignal(parent.signal);
    const reason = new Error("stop");
    parent.abort(reason);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe(reason);
  });

  test("after release the caller's signal no longer reaches it", () => {
    const parent = new AbortController();
    const { signal, release } = requestSignal(parent.signal);
    release();
    parent.abort();
    expect(signal?.aborted).toBe(false);
  });

  test("an already aborted caller gives an aborted signal; no caller gives none", () => {
    expect(requestSignal(AbortSignal.abort()).signal?.aborted).toBe(true);
    expect(requestSignal(undefined).signal).toBeUndefined();
  });
});
