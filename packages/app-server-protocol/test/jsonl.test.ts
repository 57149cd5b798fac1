import { describe, expect, test } from "bun:test";
import { encodeLine, LineDecoder, type LineEvent } from "../src/index.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const lines = (events: LineEvent[]) => events.flatMap((e) => (e.type === "line" ? [e.text] : []));

describe("LineDecoder", () => {
  test("keeps U+2028 and U+2029 inside a string intact", () => {
    const message = { method: "x", params: { text: "a\u2028b\u2029c" } };
    const decoder = new LineDecoder();
    const out = lines(decoder.push(bytes(encodeLine(message))));
    expect(out).toHaveLength(1);
    expect(JSON.parse(out[0]!)).toEqual(message);
  });

  test("strips exactly one trailing carriage return", () => {
    const decoder = new LineDecoder();
    expect(lines(decoder.push(bytes('{"a":1}\r\n{"b":2}\r\r\n')))).toEqual(['{"a":1}', '{"b":2}\r']);
  });

  test("ignores empty lines, including a bare CRLF", () => {
    const decoder = new LineDecoder();
    expect(lines(decoder.push(bytes('\n\r\n{"a":1}\n\n')))).toEqual(['{"a":1}']);
  });

  test("reassembles a line split across many chunks", () => {
    const text = JSON.stringify({ method: "m", params: { value: "x".repeat(1000) } });
    const decoder = new LineDecoder();
    const out: string[] = [];
    const all = bytes(`${text}\n`);
    for (let i = 0; i < all.length; i += 7) out.push(...lines(decoder.push(all.subarray(i, i + 7))));
    expect(out).toEqual([text]);
  });

  test("reassembles a multi-byte character split across chunks", () => {
    const text = '{"t":"é😀漢"}';
    const all = bytes(`${text}\n`);
    const decoder = new LineDecoder();
    const out: string[] = [];
    // One byte at a time splits every multi-byte sequence.
    for (let i = 0; i < all.length; i++) out.push(...lines(decoder.push(all.subarray(i, i + 1))));
    expect(out).toEqual([text]);
  });

  test("drops an oversized line, reports it once, and goes on with the next line", () => {
    const decoder = new LineDecoder(16);
    const events = [
      ...decoder.push(bytes("x".repeat(10))),
      ...decoder.push(bytes("y".repeat(10))),
      ...decoder.push(bytes("z".repeat(10))),
      ...decoder.push(bytes('\n{"ok":true}\n')),
    ];
    expect(events).toEqual([
      { type: "oversized", bytes: 30 },
      { type: "line", text: '{"ok":true}' },
    ]);
  });

  test("does not buffer an oversized line while it arrives", () => {
    const decoder = new LineDecoder(1024);
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    for (let i = 0; i < 64; i++) decoder.push(chunk);
    // Internal buffer must stay at or under the cap; read through a cast to assert the bound.
    expect((decoder as unknown as { buffered: number }).buffered).toBeLessThanOrEqual(1024);
    expect(decoder.push(bytes("\n"))).toEqual([{ type: "oversized", bytes: 64 * 64 * 1024 }]);
  });

  test("a line exactly at the cap is accepted", () => {
    const decoder = new LineDecoder(8);
    expect(lines(decoder.push(bytes("12345678\n")))).toEqual(["12345678"]);
  });

  test("end() flushes a final unterminated line", () => {
    const decoder = new LineDecoder();
    expect(decoder.push(bytes('{"a":1}'))).toEqual([]);
    expect(lines(decoder.end())).toEqual(['{"a":1}']);
  });

  test("encodeLine writes one line per message even when strings hold newlines", () => {
    const line = encodeLine({ text: "a\nb" });
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1).includes("\n")).toBe(false);
  });
});
