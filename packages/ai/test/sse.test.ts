import { describe, expect, test } from "bun:test";
import { readServerSentEvents, type ServerSentEvent, SseDecoder } from "../src/sse.ts";

/** Decodes `chunks` in order with one decoder, including the end-of-input flush. */
function decode(chunks: string[]): ServerSentEvent[] {
  const decoder = new SseDecoder();
  const events: ServerSentEvent[] = [];
  for (const chunk of chunks) events.push(...decoder.push(chunk));
  events.push(...decoder.end());
  return events;
}

/** Every way of cutting `text` in two, plus one character per chunk. */
function splits(text: string): string[][] {
  const out: string[][] = [[text], Array.from(text)];
  for (let i = 1; i < text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  return out;
}

const ev = (data: string, event?: string): ServerSentEvent => ({ event, data });

describe("SseDecoder framing", () => {
  test("named and unnamed events, in order", () => {
    const text = 'event: a\ndata: {"x":1}\n\ndata: two\n\nevent: b\ndata: 3\n\n';
    expect(decode([text])).toEqual([ev('{"x":1}', "a"), ev("two"), ev("3", "b")]);
  });

  test("an event split across chunks at any position decodes the same", () => {
    const text = "event: message_start\ndata: hello\ndata: world\n\n: ping\r\ndata: [DONE]\r\n\r\n";
    const expected = [ev("hello\nworld", "message_start"), ev("[DONE]")];
    for (const chunks of splits(text)) expect(decode(chunks)).toEqual(expected);
  });

  test("several data lines join with a newline; an empty data line contributes an empty line", () => {
    expect(decode(["data: a\ndata\ndata:b\ndata:  c\n\n"])).toEqual([ev("a\n\nb\n c")]);
    expect(decode(["data:\n\n"])).toEqual([ev("")]);
  });

  test("comments are ignored, including between the lines of one event", () => {
    expect(decode([": keep-alive\n\n", "data: x\n: mid-event comment\ndata: y\n\n"])).toEqual([ev("x\ny")]);
  });

  test("[DONE] is an ordinary event; the reader's caller decides to stop", () => {
    expect(decode(["data: [DONE]\n\n"])).toEqual([ev("[DONE]")]);
  });

  test("CRLF, CR and LF line endings, mixed, with CRLF split between chunks", () => {
    const text = "data: 1\r\n\r\ndata: 2\r\rdata: 3\n\ndata: 4\r\n\n";
    const expected = [ev("1"), ev("2"), ev("3"), ev("4")];
    for (const chunks of splits(text)) expect(decode(chunks)).toEqual(expected);
  });

  test("an event without data is not dispatched and does not leak its name", () => {
    expect(decode(["event: ping\n\ndata: x\n\n"])).toEqual([ev("x")]);
  });

  test("unknown fields and look-alike names are ignored", () => {
    expect(decode(["id: 7\nretry: 10\ndatax: no\neventful: no\ndata: yes\n\n"])).toEqual([ev("yes")]);
  });

  test("llama.cpp's `error:` line dispatches as an error event carrying its value", () => {
    expect(decode(['data: a\n\nerror: {"code":500}\n\n'])).toEqual([ev("a"), ev('{"code":500}', "error")]);
    expect(decode(["errors: no\ndata: b\n\n"])).toEqual([ev("b")]);
  });

  test("a leading byte-order mark is dropped", () => {
    expect(decode(["\uFEFFdata: x\n\n"])).toEqual([ev("x")]);
  });

  test("at the end of input a pending event is dispatched without its blank line", () => {
    expect(decode(["data: a\n\ndata: b"])).toEqual([ev("a"), ev("b")]);
    expect(decode(["data: a\n\n"])).toEqual([ev("a")]);
  });

  test("a long line delivered in many small chunks arrives whole", () => {
    const payload = "y".repeat(100_000);
    const text = `data: ${payload}\n\n`;
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 7) chunks.push(text.slice(i, i + 7));
    expect(decode(chunks)).toEqual([ev(payload)]);
  });

  test("20,000 events in one chunk decode in order", () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `data: ${i}\n\n`).join("");
    const events = decode([text]);
    expect(events.length).toBe(20_000);
    expect(events[19_999]).toEqual(ev("19999"));
  });
});

/** A byte stream over `chunks` that records whether it was cancelled; `hang` keeps it open. */
function byteStream(chunks: (string | Uint8Array)[], hang = false) {
  const state = { cancelled: false };
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk !== undefined) {
        controller.enqueue(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk);
      } else if (!hang) {
        controller.close();
      } else {
        return new Promise<void>(() => {});
      }
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}

describe("readServerSentEvents", () => {
  test("decodes UTF-8 characters split between byte chunks", async () => {
    const bytes = new TextEncoder().encode("data: héllo 😀\n\n");
    const chunks = Array.from(bytes, (b) => new Uint8Array([b]));
    const { body } = byteStream(chunks);
    const seen: ServerSentEvent[] = [];
    await readServerSentEvents(body, (e) => {
      seen.push(e);
      return false;
    });
    expect(seen).toEqual([ev("héllo 😀")]);
  });

  test("returning true stops at that event and cancels the rest of the body", async () => {
    const { body, state } = byteStream(
      ["data: a\n\ndata: [DONE]\n\ndata: after\n\n", "data: later\n\n"],
      true,
    );
    const seen: string[] = [];
    await readServerSentEvents(body, (e) => {
      seen.push(e.data);
      return e.data === "[DONE]";
    });
    expect(seen).toEqual(["a", "[DONE]"]);
    expect(state.cancelled).toBe(true);
  });

  test("a throw from the handler propagates and cancels the body", async () => {
    const { body, state } = byteStream(["data: a\n\n"], true);
    const read = readServerSentEvents(body, () => {
      throw new Error("bad event");
    });
    await expect(read).rejects.toThrow("bad event");
    expect(state.cancelled).toBe(true);
  });

  test("an abort while waiting for data cancels the body and rejects with the signal's reason", async () => {
    const { body, state } = byteStream(["data: a\n\n"], true);
    const controller = new AbortController();
    const seen: string[] = [];
    const read = readServerSentEvents(
      body,
      (e) => {
        seen.push(e.data);
        controller.abort(new Error("stop now"));
        return false;
      },
      controller.signal,
    );
    await expect(read).rejects.toThrow("stop now");
    expect(seen).toEqual(["a"]);
    expect(state.cancelled).toBe(true);
  });

  test("an already aborted signal reads nothing", async () => {
    const { body, state } = byteStream(["data: a\n\n"]);
    const seen: string[] = [];
    const read = readServerSentEvents(
      body,
      (e) => {
        seen.push(e.data);
        return false;
      },
      AbortSignal.abort(),
    );
    await expect(read).rejects.toThrow();
    expect(seen).toEqual([]);
    expect(state.cancelled).toBe(true);
  });
});

describe("readServerSentEvents backpressure", () => {
  test("while `ready` returns a promise the body is not read; it resumes when the promise settles", async () => {
    const { body } = byteStream(["data: a\n\n", "data: b\n\n", "data: c\n\n"]);
    const seen: string[] = [];
    const gate = Promise.withResolvers<void>();
    const asked = Promise.withResolvers<void>();
    let open = false;
    const read = readServerSentEvents(
      body,
      (e) => {
        seen.push(e.data);
        return false;
      },
      undefined,
      () => {
        if (seen.length === 0 || open) return undefined;
        asked.resolve();
        return gate.promise;
      },
    );
    await asked.promise;
    expect(seen).toEqual(["a"]);
    open = true;
    gate.resolve();
    await read;
    expect(seen).toEqual(["a", "b", "c"]);
  });

  test("an abort while waiting for `ready` ends the read with the signal's reason", async () => {
    const { body, state } = byteStream(["data: a\n\n", "data: b\n\n"]);
    const controller = new AbortController();
    const read = readServerSentEvents(
      body,
      () => false,
      controller.signal,
      () => new Promise<void>(() => {}),
    );
    controller.abort(new Error("stop"));
    await expect(read).rejects.toThrow("stop");
    expect(state.cancelled).toBe(true);
  });
});
