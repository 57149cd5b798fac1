import { describe, expect, test } from "bun:test";
import { encodeFrame, FrameReader } from "../src/frames.ts";

describe("frames", () => {
  test("frames split at any byte boundary come back whole and in order", () => {
    const payload = new Uint8Array(70_000).map((_, i) => i % 251);
    const bytes = new Uint8Array([...encodeFrame({ id: 1, op: "x" }, payload), ...encodeFrame({ id: 2 })]);
    const reader = new FrameReader();
    const frames = [];
    for (let at = 0; at < bytes.length; at += 997) frames.push(...reader.push(bytes.subarray(at, at + 997)));
    expect(frames.map((f) => f.header)).toEqual([{ id: 1, op: "x" }, { id: 2 }]);
    expect(frames[0]!.payload).toEqual(payload);
    expect(frames[1]!.payload.length).toBe(0);
  });

  test("a garbled stream throws instead of waiting for a 4 GB frame", () => {
    expect(() => new FrameReader().push(new Uint8Array([255, 255, 255, 255, 0, 0, 0, 0]))).toThrow(
      "out of bounds",
    );
    expect(() =>
      new FrameReader().push(encodeFrame({ id: 1 }).map((b, i) => (i === 8 ? 0x7b + 1 : b))),
    ).toThrow();
  });
});
