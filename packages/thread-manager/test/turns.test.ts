import { describe, expect, test } from "bun:test";
import { textReply } from "@knightcode/testkit";
import { createHarness, methods } from "./support/harness.ts";

const itemEvents = (m: string) =>
  m.startsWith("item/") || m === "turn/started" || m === "turn/completed" || m === "thread/turn/completed";

describe("turn/start", () => {
  test("a plain text turn sends the spec's notifications in order and returns at once", async () => {
    await using h = await createHarness();
    const caller = h.desktop();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, caller);
    h.server.enqueue(textReply("Hello there, friend", 3));
    const result = await h.manager.startTurn(
      { threadId: thread.id, text: "hi", requestId: "req-1", clientMessageId: "opt-1" },
      caller,
    );
    expect(result).toEqual({ status: "started", threadId: thread.id, requestId: "req-1" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    const seen = h.received("c1");
    expect(methods(seen, itemEvents)).toEqual([
      "turn/started",
      "item/started",
      "item/completed",
      "item/started",
      "item/agentMessage/delta",
      "item/agentMessage/delta",
      "item/agentMessage/delta",
      "item/completed",
      "turn/completed",
      "thread/turn/completed",
    ]);
    const started = seen.find((n) => n.method === "turn/started");
    expect(started?.params).toMatchObject({
      threadId: thread.id,
      requestId: "req-1",
      turn: { status: "inProgress" },
    });
    const completedItems = seen.filter((n) => n.method === "item/completed").map((n) => n.params.item);
    expect(completedItems[0]).toMatchObject({
      type: "userMessage",
      text: "hi",
      clientMessageId: "opt-1",
      index: 0,
    });
    expect(completedItems[1]).toMatchObject({ type: "agentMessage", text: "Hello there, friend", index: 1 });
    const done = seen.find((n) => n.method === "turn/completed");
    expect(done?.params.turn).not.toHaveProperty("items");
    expect(done?.params.turn.status).toBe("completed");

    // The projection decides final contents: a read returns the same items, without clientMessageId.
    const read = await h.manager.readThread({ threadId: thread.id }, caller);
    const items = read.turns[0] && "items" in read.turns[0] ? read.turns[0].items : [];
    expect(items?.map((i) => ("id" in i ? i.id : ""))).toEqual(
      completedItems.map((i) => ("id" in i ? i.id : "")),
    );
    expect(items?.[0]).not.toHaveProperty("clientMessageId");
  });
});

describe("system prompt", () => {
  test("the agent runs with the assembled system prompt including the project's context files", async () => {
    await using h = await createHarness();
    await Bun.write(`${h.dir.cwd}/AGENTS.md`, "Always answer in haiku.");
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(textReply("ok"));
    await h.manager.startTurn({ threadId: thread.id, text: "hi" }, h.desktop());
    const request = await h.server.waitForRequest(0);
    expect(request.rawBody.includes("Always answer in haiku.")).toBe(true);
    expect(request.rawBody.includes("KnightCode")).toBe(true);
    await h.waitFor((n) => n.method === "thread/turn/completed");
  });
});

describe("reasoning", () => {
  test("reasoning streams as its own item before the agent message, with durable IDs matching history", async () => {
    await using h = await createHarness({ reasoning: true });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, thinkingLevel: "high" }, h.desktop());
    h.server.enqueue({
      steps: [
        { type: "reasoning", text: "thinking hard", deltas: 2 },
        { type: "text", text: "answer", deltas: 2 },
      ],
    });
    await h.manager.startTurn({ threadId: thread.id, text: "q" }, h.desktop());
    await h.waitFor((n) => n.method === "thread/turn/completed");
    const seen = h.received("c1");
    expect(methods(seen, (m) => m.startsWith("item/"))).toEqual([
      "item/started",
      "item/completed",
      "item/started",
      "item/reasoning/delta",
      "item/reasoning/delta",
      "item/started",
      "item/agentMessage/delta",
      "item/agentMessage/delta",
      "item/completed",
      "item/completed",
    ]);
    const completed = seen.flatMap((n) => (n.method === "item/completed" ? [n.params.item] : []));
    expect(completed.map((i) => ("type" in i ? i.type : ""))).toEqual([
      "userMessage",
      "reasoning",
      "agentMessage",
    ]);
    expect(completed[1]).toMatchObject({ text: "thinking hard", index: 1 });
    const read = await h.manager.readThread({ threadId: thread.id }, h.desktop());
    const items = read.turns[0] && "items" in read.turns[0] ? (read.turns[0].items ?? []) : [];
    // Live completion and history are the same projection.
    expect(items).toEqual(completed);
  });
});
