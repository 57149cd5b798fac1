import { describe, expect, test } from "bun:test";
import { replayChunks, startReplayServer } from "../src/index.ts";

describe("replayChunks", () => {
  test("cuts every line in its middle and every multi-byte character after its first byte", () => {
    const body = 'data: {"t":"é😀"}\r\n\r\ndata: [DONE]\n\n';
    const chunks = replayChunks(body);
    // The pieces are the body, byte for byte.
    const joined = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const chunk of chunks) {
      joined.set(chunk, at);
      at += chunk.length;
    }
    expect(new TextDecoder().decode(joined)).toBe(body);
    // No piece decodes on its own into the two characters: each was split.
    const lone = chunks.map((c) => new TextDecoder("utf-8", { fatal: false }).decode(c));
    expect(lone.some((text) => text.includes("é"))).toBe(false);
    expect(lone.some((text) => text.includes("😀"))).toBe(false);
    // Neither line arrives whole.
    expect(lone.some((text) => text.includes('data: {"t":"é😀"}'))).toBe(false);
    expect(lone.some((text) => text.includes("data: [DONE]"))).toBe(false);
  });
});

describe("startReplayServer", () => {
  test("sends a recording in its pieces; a failed check answers 400 and is recorded", async () => {
    await using replay = await startReplayServer();
    const stream = {
      server: "test",
      source: "https://example.com",
      format: "chat-completions" as const,
      body: "data: [DONE]\n\n",
    };
    replay.enqueue({ stream }, { stream, accept: () => "nope: the field did not come back" });
    const post = () =>
      fetch(`${replay.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m" }) });
    const first = await post();
    expect(first.status).toBe(200);
    expect(await first.text()).toBe("data: [DONE]\n\n");
    expect(replay.chunkCounts.get(0)).toBeGreaterThan(1);
    const second = await post();
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({ error: { message: "nope: the field did not come back" } });
    expect(replay.rejections).toEqual([{ index: 1, message: "nope: the field did not come back" }]);
    // With the queue empty, a request is a 500 naming its index.
    const third = await post();
    expect(third.status).toBe(500);
    expect(await third.text()).toContain("no recording queued for request 2");
  });

  test("a request to an endpoint of another format is a 404", async () => {
    await using replay = await startReplayServer();
    const stream = { server: "test", source: "https://example.com", format: "responses" as const, body: "" };
    replay.enqueue({ stream });
    const response = await fetch(`${replay.baseUrl}/chat/completions`, { method: "POST", body: "{}" });
    expect(response.status).toBe(404);
  });
});
