import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { type ExtensionHostFactory, IDLE_UNLOAD_MS } from "../src/index.ts";
import { type PromptSources, PromptSourcesCache } from "../src/threads/system-prompt.ts";
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

describe("clientMessageId", () => {
  const userItems = (h: Awaited<ReturnType<typeof createHarness>>) =>
    h
      .received("c1")
      .flatMap((n) =>
        (n.method === "item/started" || n.method === "item/completed") && n.params.item.type === "userMessage"
          ? [n.params.item]
          : [],
      );

  test("a prompt dropped at message end takes its clientMessageId along: a later steer's user item never carries it", async () => {
    const factory: ExtensionHostFactory = async () => ({
      hooks: {
        messageEnd: async ({ message }) =>
          message.role === "user" && message.content === "drop me" ? { action: "drop" } : { action: "keep" },
      },
      commands: [],
      warnings: [],
      dispose: async () => {},
    });
    await using h = await createHarness({ extensions: factory });
    const caller = h.desktop();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, caller);
    h.server.enqueue(
      toolCallReply({ name: "write", arguments: { path: "w.txt", content: "x" }, id: "call_w" }),
      textReply("after"),
    );
    await h.manager.startTurn({ threadId: thread.id, text: "drop me", clientMessageId: "opt-1" }, caller);
    const approval = await h.waitForApproval(0);
    await h.manager.steerTurn(
      { threadId: thread.id, expectedTurnId: approval.params.turnId, text: "steered" },
      caller,
    );
    approval.answer({ decision: "accept" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    const items = userItems(h);
    expect(items.map((i) => (i.type === "userMessage" ? i.text : ""))).toEqual(["steered", "steered"]);
    for (const item of items) expect(item).not.toHaveProperty("clientMessageId");
  });

  test("a queued input's clientMessageId rides on the first user item of the turn it starts, and only there", async () => {
    await using h = await createHarness();
    const caller = h.desktop();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, caller);
    h.server.enqueue(textReply("one"));
    await h.manager.addToQueue({ threadId: thread.id, text: "queued", clientMessageId: "q-opt" }, caller);
    await h.waitFor((n) => n.method === "thread/turn/completed");
    const items = userItems(h);
    expect(items.length).toBe(2);
    for (const item of items) expect(item).toMatchObject({ text: "queued", clientMessageId: "q-opt" });
    const read = await h.manager.readThread({ threadId: thread.id }, caller);
    const saved = read.turns[0] && "items" in read.turns[0] ? (read.turns[0].items ?? []) : [];
    expect(saved[0]).not.toHaveProperty("clientMessageId");
    expect(readFileSync(thread.path!, "utf8")).not.toContain("q-opt");
  });
});

describe("prompt sources per load", () => {
  test("context files are read once per load: an edit shows after a settings change or a reload, not on the next turn", async () => {
    await using h = await createHarness();
    const caller = h.desktop();
    await Bun.write(`${h.dir.cwd}/AGENTS.md`, "Rule number one.");
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, caller);
    const turn = async (index: number) => {
      h.server.enqueue(textReply("ok"));
      const mark = h.events.length;
      await h.manager.startTurn({ threadId: thread.id, text: `turn ${index}` }, caller);
      await h.waitFor((n) => n.method === "thread/turn/completed", mark);
      return (await h.server.waitForRequest(index)).rawBody;
    };
    expect(await turn(0)).toContain("Rule number one.");
    await Bun.write(`${h.dir.cwd}/AGENTS.md`, "Rule number two.");
    expect(await turn(1)).toContain("Rule number one.");
    await h.manager.updateSettings({ threadId: thread.id, thinkingLevel: "off" }, caller);
    expect(await turn(2)).toContain("Rule number two.");
    await Bun.write(`${h.dir.cwd}/AGENTS.md`, "Rule number three.");
    await h.manager.unsubscribe({ threadId: thread.id }, caller);
    h.clock.advance(IDLE_UNLOAD_MS);
    expect(h.manager.diagnostics().loadedThreads).toBe(0);
    await h.manager.resumeThread({ threadId: thread.id }, caller);
    expect(await turn(3)).toContain("Rule number three.");
  });

  test("the cache rereads when trust or the project dir changes, and does not keep a failed read", async () => {
    const cache = new PromptSourcesCache();
    let reads = 0;
    const read = async (): Promise<PromptSources> => {
      reads += 1;
      if (reads === 1) throw new Error("EIO");
      return { files: {} as PromptSources["files"], contextFiles: [] };
    };
    const input = { agentDir: "/a", cwd: "/p", projectDir: "/p", trusted: false };
    await expect(cache.get(input, read)).rejects.toThrow("EIO");
    await cache.get(input, read);
    await cache.get(input, read);
    expect(reads).toBe(2);
    await cache.get({ ...input, trusted: true }, read);
    expect(reads).toBe(3);
    await cache.get({ ...input, trusted: true, projectDir: "/real/p" }, read);
    expect(reads).toBe(4);
    cache.invalidate();
    await cache.get({ ...input, trusted: true, projectDir: "/real/p" }, read);
    expect(reads).toBe(5);
  });
});
