import { describe, expect, test } from "bun:test";
import type { Thread } from "@knightcode/app-server-protocol";
import { ThreadState, turnView } from "../src/client/thread-state.ts";

const thread: Thread = {
  id: "t1",
  cwd: "/p",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  archived: false,
  status: { type: "idle" },
};

function started(state: ThreadState): void {
  state.upsertTurn(turnView({ id: "turn1", status: "inProgress", startedAt: 1 }));
}

describe("ThreadState", () => {
  test("turn/diff/updated: the latest diff of a turn replaces the one before", () => {
    const state = new ThreadState(thread);
    started(state);
    expect(state.turnDiff("turn1", "diff --git a/x b/x\n+one\n")).toEqual({ kind: "turn", turnId: "turn1" });
    state.turnDiff("turn1", "diff --git a/x b/x\n+two\n");
    expect(state.turn("turn1")!.diff).toBe("diff --git a/x b/x\n+two\n");
    // the completed turn's summary carries no diff: the one received stays
    state.completeTurn({ id: "turn1", status: "completed", startedAt: 1, completedAt: 2, items: [] });
    expect(state.turn("turn1")!.diff).toBe("diff --git a/x b/x\n+two\n");
  });

  test("deltas build the reply; item/completed replaces the streamed text", () => {
    const state = new ThreadState(thread);
    started(state);
    state.putItem("turn1", { id: "1", type: "agentMessage", text: "", index: 1 });
    state.appendDelta("turn1", "1", "agentMessage", "Hel");
    state.appendDelta("turn1", "1", "agentMessage", "lo");
    expect(state.item("turn1", "1")).toMatchObject({ text: "Hello" });
    state.putItem("turn1", { id: "1", type: "agentMessage", text: "Hello, world", index: 1 });
    expect(state.item("turn1", "1")).toMatchObject({ text: "Hello, world" });
  });

  test("items are ordered by their latest index", () => {
    const state = new ThreadState(thread);
    started(state);
    state.putItem("turn1", { id: "a", type: "agentMessage", text: "", index: 2 });
    state.putItem("turn1", { id: "u", type: "userMessage", text: "hi", index: 0 });
    state.putItem("turn1", { id: "a", type: "agentMessage", text: "x", index: 1 });
    expect(state.turn("turn1")!.items.map((item) => item.id)).toEqual(["u", "a"]);
  });

  test("the running turn is the in-progress one; completion keeps the items and takes the outcome", () => {
    const state = new ThreadState(thread);
    started(state);
    state.putItem("turn1", { id: "u", type: "userMessage", text: "hi", index: 0 });
    expect(state.runningTurn?.id).toBe("turn1");
    state.completeTurn({ id: "turn1", status: "interrupted", startedAt: 1, completedAt: 2 });
    expect(state.runningTurn).toBeUndefined();
    expect(state.turn("turn1")).toMatchObject({ status: "interrupted", completedAt: 2 });
    expect(state.turn("turn1")!.items).toHaveLength(1);
  });

  test("a delta for a turn not seen yet makes a placeholder turn rather than being lost", () => {
    const state = new ThreadState(thread);
    state.appendDelta("later", "r", "reasoning", "thinking");
    expect(state.turn("later")).toMatchObject({ status: "inProgress" });
    expect(state.item("later", "r")).toMatchObject({ type: "reasoning", text: "thinking" });
  });

  test("an older page goes in front, without repeating turns already shown", () => {
    const state = new ThreadState(thread);
    state.reset([turnView({ id: "b", status: "completed", startedAt: 2 })], "cursor-1");
    state.prepend(
      [
        turnView({ id: "a", status: "completed", startedAt: 1 }),
        turnView({ id: "b", status: "completed", startedAt: 2 }),
      ],
      undefined,
    );
    expect(state.turns.map((turn) => turn.id)).toEqual(["a", "b"]);
    expect(state.olderCursor).toBeUndefined();
  });

  test("item/removed withdraws the item", () => {
    const state = new ThreadState(thread);
    started(state);
    state.putItem("turn1", { id: "x", type: "agentMessage", text: "draft", index: 1 });
    state.removeItem("turn1", "x");
    expect(state.turn("turn1")!.items).toEqual([]);
  });

  test("a retry is shown on the turn until its stream moves on", () => {
    const state = new ThreadState(thread);
    started(state);
    state.retrying("turn1", "retrying in 1s (attempt 1 of 3): overloaded");
    expect(state.turn("turn1")!.retrying).toContain("attempt 1 of 3");
    state.appendDelta("turn1", "1", "agentMessage", "Hi");
    expect(state.turn("turn1")!.retrying).toBeUndefined();
  });
});
