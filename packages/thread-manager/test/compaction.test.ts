import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { textReply } from "@knightcode/testkit";
import type { ExtensionHostFactory } from "../src/index.ts";
import { createHarness, type Harness } from "./support/harness.ts";

const LONG = "lorem ipsum dolor sit amet ".repeat(200);

async function turn(h: Harness, threadId: string, text: string) {
  const mark = h.events.length;
  await h.manager.startTurn({ threadId, text }, h.desktop());
  return h.waitFor((n) => n.method === "thread/turn/completed", mark);
}

function entryTypes(path: string): string[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line).type as string);
}

describe("compaction", () => {
  test("before a new prompt over the threshold the thread compacts first and shows a compaction item", async () => {
    await using h = await createHarness({
      contextWindow: 3000,
      settings: { compaction: { reserveTokens: 1000, keepRecentTokens: 100 } },
    });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue({ steps: [{ type: "text", text: LONG }], usage: { input: 1500, output: 1500 } });
    await turn(h, thread.id, "first question");
    h.server.enqueue(textReply("## Goal\nsummary of the work"), textReply("second answer"));
    const done = await turn(h, thread.id, "second question");
    expect(done.method === "thread/turn/completed" && done.params.turn.status).toBe("completed");
    expect(h.server.requests.length).toBe(3);
    expect(entryTypes(thread.path!)).toContain("compaction");
    const item = h.events.find(
      (e) => e.notification.method === "item/completed" && e.notification.params.item.type === "compaction",
    );
    expect(item?.notification.params).toMatchObject({
      item: { type: "compaction", summary: expect.stringContaining("summary of the work") },
    });
    // The summary's usage is billed: a usage update follows the compaction item.
    const at = item ? h.events.indexOf(item) : -1;
    const next = h.events.findIndex((e, i) => i > at && e.notification.method === "item/started");
    expect(h.events.slice(at, next).some((e) => e.notification.method === "thread/tokenUsage/updated")).toBe(
      true,
    );
    // The request after compaction carries the summary instead of the summarized question.
    const last = h.server.requests[2]!.rawBody;
    expect(last.includes("summary of the work")).toBe(true);
    expect(last.includes("first question")).toBe(false);
  });

  test("a context-overflow error omits the attempt, compacts and retries once inside the same turn", async () => {
    const calls: string[] = [];
    const note = (name: string) => async () => {
      calls.push(name);
    };
    const extensions: ExtensionHostFactory = async () => ({
      hooks: {
        turnEnd: note("turn_end"),
        agentEnd: note("agent_end"),
        sessionBeforeCompact: async () => {
          calls.push("session_before_compact");
          return undefined;
        },
        sessionCompact: note("session_compact"),
      },
      commands: [],
      warnings: [],
      dispose: async () => {},
    });
    await using h = await createHarness({ settings: { compaction: { keepRecentTokens: 100 } }, extensions });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue({ steps: [{ type: "text", text: LONG }], usage: { input: 10, output: 1500 } });
    await turn(h, thread.id, "first question");
    h.server.enqueue(
      { error: { kind: "contextOverflow" } },
      textReply("## Goal\nrecovered summary"),
      textReply("retried answer"),
    );
    const done = await turn(h, thread.id, "second question");
    expect(done.method === "thread/turn/completed" && done.params.turn.status).toBe("completed");
    const types = entryTypes(thread.path!);
    const edit = types.lastIndexOf("context_edit");
    const compaction = types.lastIndexOf("compaction");
    expect(edit).toBeGreaterThan(0);
    expect(compaction).toBeGreaterThan(edit);
    expect(types.at(-1)).toBe("turn_end");
    expect(h.server.requests.length).toBe(4);
    const read = await h.manager.readThread({ threadId: thread.id }, h.desktop());
    const lastTurn = read.turns.at(-1);
    const lastItems = lastTurn && "items" in lastTurn ? (lastTurn.items ?? []) : [];
    const texts = lastItems.flatMap((i) => ("type" in i && i.type === "agentMessage" ? [i.text] : []));
    expect(texts).toContain("retried answer");
    // The spec's recovery order; the first turn contributed one turn_end and one agent_end.
    expect(calls.slice(2)).toEqual([
      "turn_end",
      "agent_end",
      "session_before_compact",
      "session_compact",
      "turn_end",
      "agent_end",
    ]);
  });

  test("a failing summarizer keeps the omission, appends no compaction and does not retry", async () => {
    await using h = await createHarness({ settings: { compaction: { keepRecentTokens: 100 } } });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue({ steps: [{ type: "text", text: LONG }], usage: { input: 10, output: 1500 } });
    await turn(h, thread.id, "first question");
    h.server.enqueue({ error: { kind: "contextOverflow" } }, { error: { kind: "badRequest" } });
    const done = await turn(h, thread.id, "second question");
    expect(done.method === "thread/turn/completed" && done.params.turn).toMatchObject({
      status: "failed",
      error: { kind: "contextOverflow" },
    });
    const types = entryTypes(thread.path!);
    expect(types).toContain("context_edit");
    expect(types).not.toContain("compaction");
    expect(h.server.requests.length).toBe(3);
  });
});
