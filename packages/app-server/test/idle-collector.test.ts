import { describe, expect, test } from "bun:test";
import type { ThreadManagerEvent } from "@knightcode/thread-manager";
import { createIdleCollector, IDLE_COLLECT_MS } from "../src/idle-collector.ts";
import { createAppServer } from "../src/server.ts";
import { FakeThreadManager } from "./support/fake-thread-manager.ts";

/** A manual clock with timers that run when it is advanced past them. */
function manualTime() {
  let now = 0;
  let timers: { at: number; run: () => void }[] = [];
  return {
    now: () => now,
    setTimer: (run: () => void, ms: number) => {
      const timer = { at: now + ms, run };
      timers.push(timer);
      return timer;
    },
    clearTimer: (timer: unknown) => {
      timers = timers.filter((t) => t !== timer);
    },
    advance(ms: number) {
      now += ms;
      for (;;) {
        const due = timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at)[0];
        if (due === undefined) return;
        timers = timers.filter((t) => t !== due);
        due.run();
      }
    },
    get pending() {
      return timers.length;
    },
  };
}

function collectorWithCount(time: ReturnType<typeof manualTime>) {
  let count = 0;
  const collector = createIdleCollector({ ...time, collect: () => count++ });
  return { collector, count: () => count };
}

describe("idle collector", () => {
  test("collects once, a quiet second after work ended", () => {
    const time = manualTime();
    const { collector, count } = collectorWithCount(time);
    time.advance(IDLE_COLLECT_MS * 5);
    expect(count()).toBe(0);
    collector.workEnded();
    time.advance(IDLE_COLLECT_MS - 1);
    expect(count()).toBe(0);
    time.advance(1);
    expect(count()).toBe(1);
    time.advance(IDLE_COLLECT_MS * 5);
    expect(count()).toBe(1);
    expect(collector.collections).toBe(1);
  });

  test("activity postpones the collection until the server has been quiet long enough", () => {
    const time = manualTime();
    const { collector, count } = collectorWithCount(time);
    collector.workEnded();
    for (let i = 0; i < 10; i++) {
      time.advance(IDLE_COLLECT_MS / 2);
      collector.activity();
    }
    expect(count()).toBe(0);
    time.advance(IDLE_COLLECT_MS);
    expect(count()).toBe(1);
  });

  test("several turns ending close together make one collection and one timer", () => {
    const time = manualTime();
    const { collector, count } = collectorWithCount(time);
    collector.workEnded();
    collector.workEnded();
    time.advance(10);
    collector.workEnded();
    expect(time.pending).toBe(1);
    time.advance(IDLE_COLLECT_MS * 3);
    expect(count()).toBe(1);
  });

  test("dispose cancels a pending collection", () => {
    const time = manualTime();
    const { collector, count } = collectorWithCount(time);
    collector.workEnded();
    collector.dispose();
    expect(time.pending).toBe(0);
    time.advance(IDLE_COLLECT_MS * 2);
    expect(count()).toBe(0);
  });

  test("the server collects after thread/turn/completed, not after other events", async () => {
    const time = manualTime();
    let count = 0;
    const threads = new FakeThreadManager();
    const server = createAppServer({ threads, idleCollect: { ...time, collect: () => count++ } });
    const event = (method: string): ThreadManagerEvent =>
      ({ audience: "everyone", notification: { method, params: {} } }) as unknown as ThreadManagerEvent;
    threads.emit(event("thread/status/changed"));
    time.advance(IDLE_COLLECT_MS * 2);
    expect(count).toBe(0);
    threads.emit(event("thread/turn/completed"));
    time.advance(IDLE_COLLECT_MS / 2);
    threads.emit(event("thread/status/changed"));
    time.advance(IDLE_COLLECT_MS / 2);
    expect(count).toBe(0);
    time.advance(IDLE_COLLECT_MS / 2);
    expect(count).toBe(1);
    await server.shutdown();
  });

  test("a long stream collects each time its deltas add up to the mark, not before", () => {
    const time = manualTime();
    let count = 0;
    const collector = createIdleCollector({ ...time, streamCollectChars: 1000, collect: () => count++ });
    collector.streamed(600);
    expect(count).toBe(0);
    collector.streamed(400);
    expect(count).toBe(1);
    // the count starts again after each collection
    collector.streamed(999);
    expect(count).toBe(1);
    collector.streamed(1);
    expect(count).toBe(2);
    expect(collector.collections).toBe(2);
    collector.dispose();
    collector.streamed(5000);
    expect(count).toBe(2);
  });

  test("the server counts agent message and reasoning deltas toward the mark; a delta postpones the idle collection", async () => {
    const time = manualTime();
    let count = 0;
    const threads = new FakeThreadManager();
    const server = createAppServer({
      threads,
      idleCollect: { ...time, streamCollectChars: 100, collect: () => count++ },
    });
    const delta = (method: string, text: string): ThreadManagerEvent =>
      ({
        audience: "everyone",
        notification: { method, params: { threadId: "t", turnId: "u", itemId: "i", delta: text } },
      }) as unknown as ThreadManagerEvent;
    threads.emit(delta("item/agentMessage/delta", "x".repeat(60)));
    expect(count).toBe(0);
    threads.emit(delta("item/reasoning/delta", "y".repeat(40)));
    expect(count).toBe(1);
    // a malformed delta counts as nothing and is still delivered without error
    threads.emit({ audience: "everyone", notification: { method: "item/agentMessage/delta" } } as never);
    expect(count).toBe(1);
    threads.emit({
      audience: "everyone",
      notification: { method: "thread/turn/completed", params: {} },
    } as never);
    time.advance(IDLE_COLLECT_MS / 2);
    threads.emit(delta("item/agentMessage/delta", "z"));
    time.advance(IDLE_COLLECT_MS / 2);
    expect(count).toBe(1);
    time.advance(IDLE_COLLECT_MS / 2);
    expect(count).toBe(2);
    await server.shutdown();
  });
});
