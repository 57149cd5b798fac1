import { describe, expect, test } from "bun:test";
import { startMockModelServer, textReply, toolCallReply, wireFormatOf } from "../src/index.ts";

/** Parses an SSE body into its `data:` payloads (JSON where possible). */
function dataOf(body: string): unknown[] {
  return body
    .split("\n\n")
    .flatMap((frame) => frame.split("\n").filter((line) => line.startsWith("data: ")))
    .map((line) => line.slice(6))
    .map((data) => (data === "[DONE]" ? data : JSON.parse(data)));
}

async function post(url: string, body: unknown, signal?: AbortSignal) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: JSON.stringify(body),
    signal,
  });
}

describe("mock model server", () => {
  test("listens on 127.0.0.1 and routes by path suffix", async () => {
    await using mock = await startMockModelServer();
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(wireFormatOf("/v1/chat/completions")).toBe("chat-completions");
    expect(wireFormatOf("/v1/v1/messages")).toBe("anthropic-messages");
    expect(wireFormatOf("/responses")).toBe("responses");
    const res = await post(`${mock.url}/nope`, {});
    expect(res.status).toBe(404);
  });

  test("records path, headers and parsed body of every request", async () => {
    await using mock = await startMockModelServer();
    mock.enqueue(textReply("hi"));
    await (await post(`${mock.baseUrl}/chat/completions`, { model: "m", stream: true })).text();
    expect(mock.requests).toHaveLength(1);
    expect(mock.requests[0]).toMatchObject({
      index: 0,
      method: "POST",
      path: "/v1/chat/completions",
      format: "chat-completions",
      body: { model: "m", stream: true },
    });
    expect(mock.requests[0]?.headers.authorization).toBe("Bearer k");
  });

  test("chat completions: content and tool_calls deltas, finish, usage chunk only when asked, [DONE]", async () => {
    await using mock = await startMockModelServer();
    mock.setDefault({
      ...toolCallReply({ name: "ls", arguments: { path: "." } }),
      usage: { input: 5, output: 2 },
    });
    const withUsage = dataOf(
      await (
        await post(`${mock.baseUrl}/chat/completions`, { stream_options: { include_usage: true } })
      ).text(),
    );
    expect(withUsage.at(-1)).toBe("[DONE]");
    expect(withUsage.at(-2)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 2 },
    });
    expect(withUsage.at(-3)).toMatchObject({ choices: [{ finish_reason: "tool_calls" }] });
    expect(JSON.stringify(withUsage)).toContain('"tool_calls":[{"index":0,"id":"call_0_0"');
    const without = dataOf(await (await post(`${mock.baseUrl}/chat/completions`, {})).text());
    expect(JSON.stringify(without)).not.toContain("prompt_tokens");
  });

  test("responses: output items, deltas and response.completed with usage", async () => {
    await using mock = await startMockModelServer();
    mock.enqueue({
      steps: [
        { type: "reasoning", text: "think" },
        { type: "text", text: "hello", deltas: 2 },
      ],
      usage: { input: 9, output: 4, cacheRead: 1 },
    });
    const events = dataOf(await (await post(`${mock.baseUrl}/responses`, {})).text()) as { type: string }[];
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("response.created");
    expect(types.filter((t) => t === "response.output_text.delta")).toHaveLength(2);
    expect(types).toContain("response.reasoning_summary_text.delta");
    expect(events.at(-1)).toMatchObject({
      type: "response.completed",
      response: { usage: { input_tokens: 10, output_tokens: 4, input_tokens_details: { cached_tokens: 1 } } },
    });
  });

  test("anthropic: message_start, thinking/tool_use blocks, message_delta stop reason, message_stop", async () => {
    await using mock = await startMockModelServer();
    mock.enqueue({
      steps: [
        { type: "reasoning", text: "hm", signature: "s1" },
        { type: "toolCall", id: "toolu_x", name: "read", arguments: { path: "a" }, deltas: 3 },
      ],
      stopReason: "length",
    });
    const events = dataOf(await (await post(`${mock.url}/v1/messages`, {})).text()) as { type: string }[];
    expect(events[0]?.type).toBe("message_start");
    expect(events as unknown[]).toContainEqual({
      type: "content_block_delta",
      index: 0,
      delta: { type: "signature_delta", signature: "s1" },
    });
    expect(events.filter((e) => JSON.stringify(e).includes("input_json_delta"))).toHaveLength(3);
    expect(events.at(-2)).toMatchObject({ type: "message_delta", delta: { stop_reason: "max_tokens" } });
    expect(events.at(-1)).toEqual({ type: "message_stop" });
  });

  test("errors carry each vendor's status, body and retry-after", async () => {
    await using mock = await startMockModelServer();
    mock.enqueue(
      { error: { kind: "rateLimit", retryAfterSeconds: 7 } },
      { error: { kind: "contextOverflow" } },
    );
    const anthropic = await post(`${mock.url}/v1/messages`, {});
    expect(anthropic.status).toBe(429);
    expect(anthropic.headers.get("retry-after")).toBe("7");
    expect(await anthropic.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    const openai = await post(`${mock.baseUrl}/chat/completions`, {});
    expect(openai.status).toBe(400);
    expect(await openai.json()).toMatchObject({ error: { code: "context_length_exceeded" } });
  });

  test("auth and server errors use 401 and 500; overload is 529 at Anthropic and 503 at OpenAI", async () => {
    await using mock = await startMockModelServer();
    mock.enqueue({ error: { kind: "auth" } }, { error: { kind: "server" } });
    mock.enqueue({ error: { kind: "overloaded" } }, { error: { kind: "overloaded" } });
    expect((await post(`${mock.baseUrl}/responses`, {})).status).toBe(401);
    expect((await post(`${mock.baseUrl}/responses`, {})).status).toBe(500);
    expect((await post(`${mock.url}/v1/messages`, {})).status).toBe(529);
    expect((await post(`${mock.baseUrl}/chat/completions`, {})).status).toBe(503);
  });

  test("with nothing queued and no default it answers 500 naming the request", async () => {
    await using mock = await startMockModelServer();
    const res = await post(`${mock.baseUrl}/chat/completions`, {});
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("no script queued for request 0");
  });

  test("responders run in order and may compute the reply from the request", async () => {
    await using mock = await startMockModelServer();
    mock.enqueue((request) => textReply(`echo ${(request.body as { n: number }).n}`), textReply("second"));
    expect(mock.pending()).toBe(2);
    const first = await (await post(`${mock.baseUrl}/chat/completions`, { n: 42 })).text();
    expect(first).toContain("echo 42");
    expect(await (await post(`${mock.baseUrl}/chat/completions`, {})).text()).toContain("second");
    mock.reset();
    expect(mock.requests).toHaveLength(0);
  });

  test("a cut stream delivers its first events and then breaks the connection", async () => {
    await using mock = await startMockModelServer();
    mock.enqueue({ steps: [{ type: "text", text: "abcdef", deltas: 6 }], cutAfterEvents: 3 });
    const res = await post(`${mock.baseUrl}/chat/completions`, {});
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  test("a stalled stream stays open until the client aborts", async () => {
    await using mock = await startMockModelServer();
    mock.enqueue({ steps: [{ type: "text", text: "abcdef", deltas: 6 }], stallAfterEvents: 2 });
    const controller = new AbortController();
    const res = await post(`${mock.baseUrl}/chat/completions`, {}, controller.signal);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("chat.completion.chunk");
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
  });

  test("slow deltas arrive as separate writes", async () => {
    await using mock = await startMockModelServer();
    mock.enqueue({ steps: [{ type: "text", text: "abc", deltas: 3 }], delayMs: 5 });
    const res = await post(`${mock.baseUrl}/chat/completions`, {});
    const reader = res.body!.getReader();
    let reads = 0;
    let text = "";
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      reads++;
      text += new TextDecoder().decode(value);
    }
    expect(reads).toBeGreaterThan(1);
    expect(text).toContain("[DONE]");
  });

  test("waitForRequest resolves when the request arrives", async () => {
    await using mock = await startMockModelServer();
    mock.setDefault(textReply("x"));
    const waiting = mock.waitForRequest();
    await (await post(`${mock.baseUrl}/responses`, { tag: 1 })).text();
    expect((await waiting).body).toEqual({ tag: 1 });
    await expect(mock.waitForRequest(5, 20)).rejects.toThrow(/request 5 did not arrive/);
  });

  test("streamError ends each format with the vendor's in-stream error event", async () => {
    await using mock = await startMockModelServer();
    mock.setDefault({ steps: [{ type: "text", text: "hi" }], streamError: { kind: "overloaded" } });
    const anthropic = dataOf(await (await post(`${mock.url}/v1/messages`, {})).text());
    expect(anthropic.at(-1)).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    const responses = dataOf(await (await post(`${mock.baseUrl}/responses`, {})).text());
    expect(responses.at(-1)).toMatchObject({
      type: "response.failed",
      response: { error: { code: "server_error" } },
    });
    const chat = dataOf(await (await post(`${mock.baseUrl}/chat/completions`, {})).text());
    expect(chat.at(-1)).toMatchObject({ error: { type: "server_error" } });
    expect(chat).not.toContain("[DONE]");
  });
});
