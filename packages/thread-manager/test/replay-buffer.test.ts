import { describe, expect, test } from "bun:test";
import type { ServerNotification } from "@knightcode/app-server-protocol";
import { ReplayBuffer, replayGap } from "../src/threads/replay-buffer.ts";

const delta = (text: string): ServerNotification => ({
  method: "item/agentMessage/delta",
  params: { threadId: "t", turnId: "u", itemId: "1", delta: text },
});

describe("a thread's replay buffer", () => {
  test("numbers every notification from 1 and replays exactly what came after a seq", () => {
    const buffer = new ReplayBuffer();
    expect([buffer.record(delta("a")), buffer.record(delta("b")), buffer.record(delta("c"))]).toEqual([
      1, 2, 3,
    ]);
    expect(buffer.since(buffer.streamId, 1)?.map((e) => e.seq)).toEqual([2, 3]);
    expect(buffer.since(buffer.streamId, 0)?.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(buffer.since(buffer.streamId, 3)).toEqual([]);
    expect(buffer.position()).toEqual({ id: buffer.streamId, seq: 3 });
  });

  test("a seq from another stream, or from the future, is a gap that is gone", () => {
    const buffer = new ReplayBuffer();
    buffer.record(delta("a"));
    expect(buffer.since(new ReplayBuffer().streamId, 0)).toBeUndefined();
    expect(buffer.since(buffer.streamId, 2)).toBeUndefined();
  });

  test("the count bound evicts the oldest; a gap reaching past them is gone", () => {
    const buffer = new ReplayBuffer({ maxNotifications: 3, maxBytes: 1 << 20 });
    for (let i = 0; i < 5; i++) buffer.record(delta(String(i)));
    expect(buffer.stats().notifications).toBe(3);
    expect(buffer.since(buffer.streamId, 2)?.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(buffer.since(buffer.streamId, 1)).toBeUndefined();
  });

  test("the byte bound evicts too, and a notification larger than it keeps nothing", () => {
    const one = JSON.stringify(delta("x".repeat(100))).length;
    const buffer = new ReplayBuffer({ maxNotifications: 100, maxBytes: one * 2 });
    for (let i = 0; i < 4; i++) buffer.record(delta("x".repeat(100)));
    expect(buffer.stats()).toEqual({ notifications: 2, bytes: one * 2 });
    buffer.record(delta("y".repeat(one * 3)));
    expect(buffer.stats()).toEqual({ notifications: 0, bytes: 0 });
    expect(buffer.since(buffer.streamId, 4)).toBeUndefined();
    expect(buffer.since(buffer.streamId, 5)).toEqual([]);
  });

  test("eviction over many records keeps order and bounds (the array is compacted in bulk)", () => {
    const buffer = new ReplayBuffer({ maxNotifications: 10, maxBytes: 1 << 20 });
    for (let i = 0; i < 5000; i++) buffer.record(delta(String(i)));
    expect(buffer.since(buffer.streamId, 4990)?.map((e) => e.seq)).toEqual([
      4991, 4992, 4993, 4994, 4995, 4996, 4997, 4998, 4999, 5000,
    ]);
  });

  test("replayGap sends the missed entries in order and says replayed, or says gone and sends nothing", () => {
    const buffer = new ReplayBuffer({ maxNotifications: 2, maxBytes: 1 << 20 });
    for (const text of ["a", "b", "c"]) buffer.record(delta(text));
    const sent: number[] = [];
    expect(replayGap(buffer, { streamId: buffer.streamId, afterSeq: 1 }, (e) => sent.push(e.seq))).toBe(
      "replayed",
    );
    expect(sent).toEqual([2, 3]);
    expect(replayGap(buffer, { streamId: buffer.streamId, afterSeq: 0 }, (e) => sent.push(e.seq))).toBe(
      "gone",
    );
    expect(replayGap(buffer, undefined, (e) => sent.push(e.seq))).toBeUndefined();
    expect(sent).toEqual([2, 3]);
  });
});
