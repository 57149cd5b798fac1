import { describe, expect, test } from "bun:test";
import { acpStdioStream, type LineSink } from "../src/stdio-stream.ts";

/** A sink that records writes and can refuse more until drained. */
function recordingSink(full = false) {
  const writes: string[] = [];
  let onDrain: (() => void) | undefined;
  const sink: LineSink = {
    write(data) {
      writes.push(data);
      return !full;
    },
    once(_event, listener) {
      onDrain = listener;
      return sink;
    },
    end(callback) {
      callback();
      return sink;
    },
  };
  return { sink, writes, drain: () => onDrain?.() };
}

describe("ACP stdio stream", () => {
  test("the first message goes out at once; the rest of the burst in one write at the end of the turn", async () => {
    const { sink, writes } = recordingSink();
    const { writable } = acpStdioStream(new ReadableStream(), sink);
    const writer = writable.getWriter();
    await writer.write({ jsonrpc: "2.0", method: "a" });
    expect(writes).toEqual(['{"jsonrpc":"2.0","method":"a"}\n']);
    await writer.write({ jsonrpc: "2.0", method: "b" });
    await writer.write({ jsonrpc: "2.0", method: "c" });
    expect(writes.length).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([
      '{"jsonrpc":"2.0","method":"a"}\n',
      '{"jsonrpc":"2.0","method":"b"}\n{"jsonrpc":"2.0","method":"c"}\n',
    ]);
  });

  test("a write the sink refuses waits until the sink drains", async () => {
    const { sink, writes, drain } = recordingSink(true);
    const { writable } = acpStdioStream(new ReadableStream(), sink);
    const writer = writable.getWriter();
    let written = false;
    const pending = writer.write({ jsonrpc: "2.0", method: "a" }).then(() => {
      written = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes.length).toBe(1);
    expect(written).toBe(false);
    drain();
    await pending;
    expect(written).toBe(true);
  });
});
