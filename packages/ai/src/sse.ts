/**
 * A lean server-sent events reader for provider streams.
 *
 * The vendor SDKs still build the request, authenticate and turn HTTP failures into their
 * typed errors; this module only decodes the body of a successful streaming response. It
 * exists because the SDKs' own stream iteration was the slowest stage of a streamed reply
 * (the OpenAI SDK scans every byte in JavaScript and hands each event through three nested
 * async generators). Here a chunk is decoded once, split with `indexOf`, and its events are
 * handed to a synchronous callback, so the cost per event is O(its length) with no promise
 * per event.
 */
import { waitOrAbort } from "./wait-or-abort.ts";

/** One dispatched event: its `event:` name (absent when none was given) and its joined `data:` lines. */
export interface ServerSentEvent {
  event: string | undefined;
  data: string;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

/**
 * Incremental SSE framing per the WHATWG event-stream format: lines end in CRLF, LF or CR
 * (a CRLF may be split across chunks), `:` lines are comments, several `data:` lines join
 * with `\n`, a blank line dispatches, and an event without `data:` is not dispatched. Fields
 * other than `event` and `data` (`id`, `retry`) are ignored, except llama.cpp's `error:`
 * line, which dispatches as an `error` event. At the end of the input a
 * pending event is dispatched even without its closing blank line, as the vendor SDKs do.
 *
 * Each character is scanned a bounded number of times however the input is chunked: a line
 * spread over many chunks is kept as pieces and joined once when its end arrives.
 */
export class SseDecoder {
  /** Pieces of the current, still unterminated line. */
  #partial: string[] = [];
  /** The previous chunk ended in CR, so a leading LF in the next one belongs to it. */
  #skipLF = false;
  #started = false;
  #event: string | undefined = undefined;
  #data: string | undefined = undefined;

  /** Feeds decoded text; returns the events it completed, in order. */
  push(text: string): ServerSentEvent[] {
    const out: ServerSentEvent[] = [];
    if (text.length === 0) return out;
    let p = 0;
    if (!this.#started) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) p = 1;
    }
    if (this.#skipLF) {
      this.#skipLF = false;
      if (text.charCodeAt(p) === LF) p++;
    }
    const length = text.length;
    // Next LF / CR at or after p; -1 once none is left. Each is only searched forward, so
    // the whole chunk is scanned once per terminator kind.
    let lf = text.indexOf("\n", p);
    let cr = text.indexOf("\r", p);
    while (true) {
      if (lf !== -1 && lf < p) lf = text.indexOf("\n", p);
      if (cr !== -1 && cr < p) cr = text.indexOf("\r", p);
      const end = lf === -1 ? cr : cr === -1 || lf < cr ? lf : cr;
      if (end === -1) break;
      if (this.#partial.length > 0) {
        this.#partial.push(text.slice(p, end));
        const line = this.#partial.join("");
        this.#partial = [];
        this.#line(line, 0, line.length, out);
      } else {
        this.#line(text, p, end, out);
      }
      p = end + 1;
      if (text.charCodeAt(end) === CR) {
        if (p === length) this.#skipLF = true;
        else if (text.charCodeAt(p) === LF) p++;
      }
    }
    if (p < length) this.#partial.push(p === 0 ? text : text.slice(p));
    return out;
  }

  /** Signals the end of the input; returns the event left pending, if any. */
  end(): ServerSentEvent[] {
    const out: ServerSentEvent[] = [];
    if (this.#partial.length > 0) {
      const line = this.#partial.join("");
      this.#partial = [];
      this.#line(line, 0, line.length, out);
    }
    this.#line("", 0, 0, out);
    this.#skipLF = false;
    return out;
  }

  /** Handles the line `s[start, end)`, adding the event it dispatches to `out`. */
  #line(s: string, start: number, end: number, out: ServerSentEvent[]): void {
    if (start === end) {
      if (this.#data !== undefined) out.push({ event: this.#event, data: this.#data });
      this.#event = undefined;
      this.#data = undefined;
      return;
    }
    const first = s.charCodeAt(start);
    if (first === COLON) return;
    // `startsWith` cannot match past `end`: the character there is a line terminator.
    if (first === 100 /* d */ && s.startsWith("data", start)) {
      const value = fieldValue(s, start + 4, end);
      if (value !== undefined) this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
    } else if (first === 101 /* e */) {
      if (s.startsWith("event", start)) {
        const value = fieldValue(s, start + 5, end);
        if (value !== undefined) this.#event = value;
      } else if (s.startsWith("error", start)) {
        // Not a WHATWG field, but llama.cpp's server reports a failure mid-stream as an
        // `error: {json}` line; it reads as an `error` event carrying that JSON.
        const value = fieldValue(s, start + 5, end);
        if (value !== undefined) {
          this.#event = "error";
          this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
        }
      }
    }
  }
}

/**
 * The value of a field whose name ends at `at`: empty for a bare name, the rest after `:`
 * (less one leading space) otherwise, `undefined` when the name merely starts that way.
 */
function fieldValue(s: string, at: number, end: number): string | undefined {
  if (at === end) return "";
  if (s.charCodeAt(at) !== COLON) return undefined;
  const from = at + 1 < end && s.charCodeAt(at + 1) === SPACE ? at + 2 : at + 1;
  return s.slice(from, end);
}

/**
 * Reads an SSE body to its end, calling `onEvent` synchronously for each event; `onEvent`
 * returns `true` to stop reading (the rest of the body is cancelled). A throw from
 * `onEvent` cancels the body and propagates. When `signal` fires the body is cancelled and
 * the signal's reason is thrown, so callers classify it as an abort. `ready` is asked
 * before every read of the body; while it returns a promise the body is not read, which
 * holds the sender back through the connection's flow control (backpressure).
 */
export async function readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: ServerSentEvent) => boolean,
  signal?: AbortSignal,
  ready?: () => Promise<void> | undefined,
): Promise<void> {
  const reader = body.getReader();
  const text = new TextDecoder();
  const sse = new SseDecoder();
  let open = true;
  const cancel = () => {
    if (!open) return;
    open = false;
    reader.cancel().catch(() => undefined);
  };
  const throwIfAborted = () => {
    if (signal?.aborted) throw signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
  };
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    throwIfAborted();
    while (true) {
      const wait = ready?.();
      if (wait !== undefined) {
        await waitOrAbort(wait, signal);
        throwIfAborted();
      }
      const { done, value } = await reader.read();
      throwIfAborted();
      if (done) break;
      for (const event of sse.push(text.decode(value, { stream: true }))) if (onEvent(event)) return;
    }
    open = false;
    for (const event of sse.push(text.decode())) if (onEvent(event)) return;
    for (const event of sse.end()) if (onEvent(event)) return;
  } finally {
    signal?.removeEventListener("abort", cancel);
    cancel();
  }
}
