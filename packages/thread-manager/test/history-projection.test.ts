import { describe, expect, test } from "bun:test";
import { type AssistantMessage, emptyUsage } from "@knightcode/ai";
import type { SessionEntry } from "@knightcode/session-store";
import { projectHistory, projectTurns, turnSummary } from "../src/history/history-projection.ts";

let seq = 0;
function id(): string {
  seq += 1;
  return seq.toString(16).padStart(8, "0");
}
const iso = (ms: number) => new Date(ms).toISOString();

function entries(list: Record<string, unknown>[]): SessionEntry[] {
  let parent: string | null = null;
  return list.map((e) => {
    const entry = { id: (e as { id?: string }).id ?? id(), parentId: parent, ...e } as SessionEntry;
    parent = entry.id;
    return entry;
  });
}

function assistant(
  content: AssistantMessage["content"],
  extra: Partial<AssistantMessage> = {},
): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "mock",
    model: "m",
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: 2000,
    durationMs: 500,
    ...extra,
  };
}

describe("projectTurns", () => {
  test("a completed turn whose last reply hit the output limit says so with stopReason maxTokens; others do not", () => {
    const turnWith = (stopReason: AssistantMessage["stopReason"], outcome: string) =>
      projectHistory(
        entries([
          { type: "turn_start", id: "turn0001", startedAt: 1000, timestamp: iso(1000) } as never,
          {
            type: "message",
            timestamp: iso(1001),
            message: { role: "user", content: "hi", timestamp: 1001 },
          },
          {
            type: "message",
            timestamp: iso(2600),
            message: assistant([{ type: "text", text: "cut" }], { stopReason }),
          },
          { type: "turn_end", turnId: "turn0001", outcome, completedAt: 2700, timestamp: iso(2700) } as never,
        ]),
      )[0]!;
    expect(turnWith("length", "completed").stopReason).toBe("maxTokens");
    expect(turnSummary(turnWith("length", "completed")).stopReason).toBe("maxTokens");
    expect(turnWith("stop", "completed").stopReason).toBeUndefined();
    expect(turnWith("length", "interrupted").stopReason).toBeUndefined();
  });

  test("a plain marker turn projects user and agent items with durable IDs and spec times", () => {
    const list = entries([
      { type: "turn_start", id: "turn0001", startedAt: 1000, timestamp: iso(1000) } as never,
      { type: "message", timestamp: iso(1001), message: { role: "user", content: "hi", timestamp: 1001 } },
      { type: "message", timestamp: iso(2600), message: assistant([{ type: "text", text: "hello" }]) },
      {
        type: "turn_end",
        turnId: "turn0001",
        outcome: "completed",
        completedAt: 2700,
        timestamp: iso(2700),
      } as never,
    ]);
    const [turn] = projectHistory(list);
    expect(turn).toEqual({
      id: "turn0001",
      status: "completed",
      startedAt: 1000,
      completedAt: 2700,
      items: [
        { id: "turn0001:0", type: "userMessage", text: "hi", index: 0, completedAt: 1001 },
        {
          id: "turn0001:1",
          type: "agentMessage",
          text: "hello",
          index: 1,
          startedAt: 2000,
          completedAt: 2500,
        },
      ],
    });
  });

  test("in a running turn a call reads inProgress until the model replies again without its result, then failed", () => {
    const call = { type: "toolCall" as const, id: "call_1", name: "ls", arguments: {} };
    const head = [
      { type: "turn_start", id: "turn0002", startedAt: 1000, timestamp: iso(1000) } as never,
      { type: "message", timestamp: iso(1001), message: { role: "user", content: "go", timestamp: 1001 } },
      { type: "message", timestamp: iso(2600), message: assistant([call], { stopReason: "toolUse" }) },
    ];
    const callOf = (list: Record<string, unknown>[]) =>
      projectHistory(entries(list), { runningTurnId: "turn0002" })[0]?.items?.find((i) => i.id === "call_1");
    expect(callOf(head)).toMatchObject({ status: "inProgress" });
    const replied = [
      ...head,
      { type: "message", timestamp: iso(3600), message: assistant([{ type: "text", text: "moving on" }]) },
    ];
    expect(callOf(replied)).toMatchObject({ status: "failed" });
    expect(callOf(replied)).not.toHaveProperty("completedAt");
  });

  test("a saved marker turn with no end entry reads interrupted without completion time", () => {
    const list = entries([
      { type: "turn_start", id: "turnA", startedAt: 1000, timestamp: iso(1000) } as never,
      { type: "message", timestamp: iso(1001), message: { role: "user", content: "hi", timestamp: 1001 } },
    ]);
    const [turn] = projectHistory(list);
    expect(turn?.status).toBe("interrupted");
    expect(turn?.completedAt).toBeUndefined();
    expect(projectHistory(list, { runningTurnId: "turnA" })[0]?.status).toBe("inProgress");
  });

  test("tool calls keep call IDs, finish at the tool-result time and report fileChanges", () => {
    const list = entries([
      { type: "turn_start", id: "t1", startedAt: 1000, timestamp: iso(1000) } as never,
      { type: "message", timestamp: iso(1001), message: { role: "user", content: "edit", timestamp: 1001 } },
      {
        type: "message",
        timestamp: iso(2600),
        message: assistant(
          [
            { type: "thinking", thinking: "plan" },
            { type: "toolCall", id: "call_a", name: "edit", arguments: { path: "/p/a.ts", edits: [] } },
            { type: "toolCall", id: "call_b", name: "bash", arguments: { command: "false" } },
          ],
          { stopReason: "toolUse" },
        ),
      },
      {
        type: "message",
        timestamp: iso(3000),
        message: {
          role: "toolResult",
          toolCallId: "call_a",
          toolName: "edit",
          content: [{ type: "text", text: "ok" }],
          details: { fileChanges: [{ path: "/p/a.ts", kind: "modify", diff: "@@ -1 +1 @@" }] },
          isError: false,
          timestamp: 3000,
        },
      },
      {
        type: "message",
        timestamp: iso(3100),
        message: {
          role: "toolResult",
          toolCallId: "call_b",
          toolName: "bash",
          content: [{ type: "text", text: "exit 1" }],
          isError: true,
          timestamp: 3100,
        },
      },
      {
        type: "message",
        timestamp: iso(4000),
        message: assistant([{ type: "text", text: "done" }], { timestamp: 3500 }),
      },
      {
        type: "turn_end",
        turnId: "t1",
        outcome: "completed",
        completedAt: 4100,
        timestamp: iso(4100),
      } as never,
    ]);
    const [projected] = projectTurns(list);
    const items = projected?.turn.items ?? [];
    expect(items.map((i) => i.id)).toEqual(["t1:0", "t1:1", "call_a", "call_b", "t1:2"]);
    expect(items.map((i) => i.index)).toEqual([0, 1, 2, 3, 4]);
    expect(items[2]).toMatchObject({
      status: "completed",
      startedAt: 2500,
      completedAt: 3000,
      fileChanges: [{ path: "/p/a.ts", kind: "modify", diff: "@@ -1 +1 @@" }],
    });
    expect(items[3]).toMatchObject({ status: "failed", completedAt: 3100, output: "exit 1" });
    expect(items[3]).not.toHaveProperty("fileChanges");
  });

  test("a malformed fileChanges report is ignored as a whole and declined results read declined", () => {
    const list = entries([
      { type: "turn_start", id: "t2", startedAt: 1, timestamp: iso(1) } as never,
      {
        type: "message",
        timestamp: iso(2),
        message: assistant(
          [
            { type: "toolCall", id: "x1", name: "ext_tool", arguments: {} },
            { type: "toolCall", id: "x2", name: "write", arguments: { path: "/p/b" } },
          ],
          { stopReason: "toolUse" },
        ),
      },
      {
        type: "message",
        timestamp: iso(3),
        message: {
          role: "toolResult",
          toolCallId: "x1",
          toolName: "ext_tool",
          content: [],
          details: {
            fileChanges: [
              { path: "/ok", kind: "add" },
              { path: "/bad", kind: "rename" },
            ],
          },
          isError: false,
          timestamp: 3,
        },
      },
      {
        type: "message",
        timestamp: iso(4),
        message: {
          role: "toolResult",
          toolCallId: "x2",
          toolName: "write",
          content: [{ type: "text", text: "Use the project-local file instead" }],
          details: { approval: "declined" },
          isError: true,
          timestamp: 4,
        },
      },
    ]);
    const items = projectHistory(list)[0]?.items ?? [];
    expect(items[0]).not.toHaveProperty("fileChanges");
    expect(items[0]).toMatchObject({ status: "completed" });
    expect(items[1]).toMatchObject({ status: "declined", output: "Use the project-local file instead" });
  });

  test("failed turns carry error kind and summaries bound the message to 2,000 characters", () => {
    const long = "rate limit exceeded ".repeat(200);
    const list = entries([
      { type: "turn_start", id: "t3", startedAt: 1, timestamp: iso(1) } as never,
      {
        type: "turn_end",
        turnId: "t3",
        outcome: "failed",
        error: { message: long, kind: "rateLimit" },
        completedAt: 5,
        timestamp: iso(5),
      } as never,
    ]);
    const [turn] = projectHistory(list);
    expect(turn?.error?.message).toBe(long);
    const summary = turnSummary(turn!);
    expect(summary).not.toHaveProperty("items");
    expect(summary.error).toEqual({ message: long.slice(0, 2000), kind: "rateLimit" });
  });

  test("entries without markers form synthetic turns at each user message", () => {
    const list = entries([
      { type: "model_change", provider: "p", modelId: "m", timestamp: iso(1) } as never,
      { type: "message", timestamp: iso(10), message: { role: "user", content: "one", timestamp: 10 } },
      {
        type: "message",
        timestamp: iso(20),
        message: assistant([{ type: "text", text: "a" }], { timestamp: 15 }),
      },
      { type: "message", timestamp: iso(30), message: { role: "user", content: "two", timestamp: 30 } },
      {
        type: "message",
        timestamp: iso(40),
        message: assistant([], { timestamp: 35, stopReason: "aborted", errorMessage: "Request was aborted" }),
      },
    ]);
    const turns = projectHistory(list);
    expect(turns.map((t) => [t.status, t.startedAt, t.completedAt])).toEqual([
      ["completed", 10, 20],
      ["interrupted", 30, 40],
    ]);
    expect(turns[0]?.id).toBe(list[1]!.id);
  });

  test("compaction entries become compaction items with only a completion time", () => {
    const list = entries([
      { type: "turn_start", id: "t4", startedAt: 1, timestamp: iso(1) } as never,
      {
        type: "compaction",
        summary: "S",
        firstKeptEntryId: "x",
        tokensBefore: 42,
        timestamp: iso(7),
      } as never,
    ]);
    expect(projectHistory(list)[0]?.items?.[0]).toEqual({
      id: "t4:0",
      type: "compaction",
      summary: "S",
      tokensBefore: 42,
      index: 0,
      completedAt: 7,
    });
  });
});

describe("fileChanges", () => {
  const callAndResult = (name: string, result: Record<string, unknown>) =>
    entries([
      { type: "turn_start", id: "tf", startedAt: 1, timestamp: iso(1) } as never,
      {
        type: "message",
        timestamp: iso(2),
        message: assistant([{ type: "toolCall", id: "c1", name, arguments: { path: "/p/a" } }], {
          stopReason: "toolUse",
        }),
      },
      {
        type: "message",
        timestamp: iso(3),
        message: {
          role: "toolResult",
          toolCallId: "c1",
          toolName: name,
          content: [],
          timestamp: 3,
          ...result,
        },
      },
    ]);

  test("a malformed report on an edit/write call is ignored as a whole, not replaced by a guess from its arguments", () => {
    const items =
      projectHistory(
        callAndResult("write", {
          isError: false,
          details: { fileChanges: [{ path: "/p/a", kind: "rename" }] },
        }),
      )[0]?.items ?? [];
    expect(items[0]).toMatchObject({ type: "toolCall", status: "completed" });
    expect(items[0]).not.toHaveProperty("fileChanges");
  });

  test("a failed call reports no changes even with a valid report", () => {
    const items =
      projectHistory(
        callAndResult("edit", {
          isError: true,
          details: { fileChanges: [{ path: "/p/a", kind: "modify", diff: "-a\n+b" }], diff: "-a\n+b" },
        }),
      )[0]?.items ?? [];
    expect(items[0]).toMatchObject({ type: "toolCall", status: "failed" });
    expect(items[0]).not.toHaveProperty("fileChanges");
  });

  test("a non-empty patch becomes diff and an empty one is left out", () => {
    const [withDiff] =
      projectHistory(
        callAndResult("ext", {
          isError: false,
          details: { fileChanges: [{ path: "/p/a", kind: "add", diff: "+x" }] },
        }),
      )[0]?.items ?? [];
    expect(withDiff).toMatchObject({ fileChanges: [{ path: "/p/a", kind: "add", diff: "+x" }] });
    const [empty] =
      projectHistory(
        callAndResult("ext", {
          isError: false,
          details: { fileChanges: [{ path: "/p/a", kind: "delete", diff: "" }] },
        }),
      )[0]?.items ?? [];
    expect(empty).toMatchObject({ fileChanges: [{ path: "/p/a", kind: "delete" }] });
    expect((empty as { fileChanges: object[] }).fileChanges[0]).not.toHaveProperty("diff");
  });
});
