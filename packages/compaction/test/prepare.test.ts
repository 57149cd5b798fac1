import { describe, expect, test } from "bun:test";
import { prepareCompaction } from "../src/prepare.ts";
import { assistant, TestSession, toolCall, toolResult, usage, user } from "./helpers.ts";

const settings = (keepRecentTokens: number) => ({ enabled: true, reserveTokens: 16384, keepRecentTokens });

describe("prepareCompaction", () => {
  test("summarizes everything before the cut and keeps the rest", () => {
    const s = new TestSession();
    s.msg(user(400));
    s.msg(assistant(400));
    const kept = s.msg(user(400));
    s.msg(assistant(400));
    const p = prepareCompaction(s.path(), settings(150));
    expect(p?.firstKeptEntryId).toBe(kept);
    expect(p?.messagesToSummarize).toEqual([user(400), assistant(400)]);
    expect(p?.turnPrefixMessages).toEqual([]);
    expect(p?.isSplitTurn).toBe(false);
    expect(p?.previousSummary).toBeUndefined();
    expect(p?.settings).toEqual(settings(150));
  });

  test("returns undefined right after a compaction and when nothing would be summarized", () => {
    const s = new TestSession();
    s.msg(user(4));
    s.msg(assistant(4));
    expect(prepareCompaction(s.path(), settings(20_000))).toBeUndefined();
    s.compaction("sum", "e0");
    expect(prepareCompaction(s.path(), settings(1))).toBeUndefined();
    expect(prepareCompaction([], settings(1))).toBeUndefined();
  });

  test("a split span puts its prefix apart from the history", () => {
    const s = new TestSession();
    s.msg(user(40));
    s.msg(assistant(40));
    s.msg(user(40));
    s.msg(toolCall("read", { path: "a.ts" }));
    s.msg(toolResult(40, "call-read"));
    const kept = s.msg(assistant(400));
    s.msg(toolResult(400));
    const p = prepareCompaction(s.path(), settings(150));
    expect(p?.firstKeptEntryId).toBe(kept);
    expect(p?.isSplitTurn).toBe(true);
    expect(p?.turnStartIndex).toBe(2);
    expect(p?.messagesToSummarize).toEqual([user(40), assistant(40)]);
    expect(p?.turnPrefixMessages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect([...(p?.fileOps.read ?? [])]).toEqual(["a.ts"]);
  });

  test("a repeated compaction summarizes from the previous kept boundary, with the previous summary", () => {
    const s = new TestSession();
    s.msg(user(40));
    s.msg(assistant(40));
    const keptBefore = s.msg(user(41));
    s.msg(assistant(41));
    s.compaction("first summary", keptBefore);
    s.msg(user(42));
    s.msg(assistant(42));
    const kept = s.msg(user(400));
    s.msg(assistant(400));
    const p = prepareCompaction(s.path(), settings(150));
    expect(p?.summarizeFromIndex).toBe(2);
    expect(p?.firstKeptEntryId).toBe(kept);
    expect(p?.messagesToSummarize).toEqual([user(41), assistant(41), user(42), assistant(42)]);
    expect(p?.previousSummary).toBe("first summary");
  });

  test("falls back to the entry after the previous compaction when its kept entry is not on the path", () => {
    const s = new TestSession();
    s.msg(user(40));
    s.compaction("first summary", "gone");
    s.msg(user(42));
    s.msg(assistant(42));
    s.msg(user(400));
    s.msg(assistant(400));
    const p = prepareCompaction(s.path(), settings(150));
    expect(p?.summarizeFromIndex).toBe(2);
    expect(p?.messagesToSummarize).toEqual([user(42), assistant(42)]);
  });

  test("after a retain-none compaction (its own ID) the range starts after that entry", () => {
    const s = new TestSession();
    s.msg(user(40));
    s.compaction("first summary", "self");
    s.msg(user(42));
    s.msg(assistant(42));
    s.msg(user(400));
    s.msg(assistant(400));
    const p = prepareCompaction(s.path(), settings(150));
    expect(p?.summarizeFromIndex).toBe(2);
    expect(p?.messagesToSummarize).toEqual([user(42), assistant(42)]);
  });

  test("a zero keep budget plans a retain-none compaction", () => {
    const s = new TestSession();
    s.msg(user(40));
    s.msg(assistant(40));
    const p = prepareCompaction(s.path(), settings(0));
    expect(p?.firstKeptEntryId).toBeUndefined();
    expect(p?.firstKeptIndex).toBe(2);
    expect(p?.messagesToSummarize).toEqual([user(40), assistant(40)]);
  });

  test("tokensBefore comes from the rebuilt, context-edited projection", () => {
    const s = new TestSession();
    const kept = s.msg(assistant(4, { usage: usage(150_000) }));
    s.compaction("s".repeat(400), kept);
    s.msg(user(400));
    const attempt = s.msg(assistant(40_000, { stopReason: "error" }));
    s.omit(attempt);
    s.msg(user(400));
    // summary 100 + kept 1 + user 100 + user 100; the omitted attempt and the usage
    // measured before the compaction do not count.
    expect(prepareCompaction(s.path(), settings(150))?.tokensBefore).toBe(301);
  });

  test("omitted raw entries are not summarized", () => {
    const s = new TestSession();
    s.msg(user(40));
    const attempt = s.msg(assistant("failed", { stopReason: "error" }));
    s.omit(attempt);
    s.msg(user(400));
    s.msg(assistant(400));
    expect(prepareCompaction(s.path(), settings(150))?.messagesToSummarize).toEqual([user(40)]);
  });

  test("an over-budget recovered input is summarized and the omission edits stay kept", () => {
    const s = new TestSession();
    s.msg(user(400));
    s.msg(assistant(400));
    s.msg(user(4000));
    const attempt = s.msg(assistant("", { stopReason: "error" }));
    s.omit(attempt);
    const p = prepareCompaction(s.path(), settings(500));
    expect(p?.firstKeptEntryId).toBe(attempt);
    expect(p?.messagesToSummarize).toEqual([user(400), assistant(400), user(4000)]);
    expect(p?.isSplitTurn).toBe(false);
  });
});

describe("file tracking", () => {
  test("accumulates from the previous default compaction and the summarized tool calls", () => {
    const s = new TestSession();
    const first = s.msg(user(40));
    s.compaction("first", first, { details: { readFiles: ["old-read.ts"], modifiedFiles: ["old-mod.ts"] } });
    s.msg(toolCall("read", { path: "r.ts" }, "1"));
    s.msg(toolCall("write", { path: "w.ts", content: "" }, "2"));
    s.msg(toolCall("edit", { path: "e.ts", edits: [] }, "3"));
    s.msg(toolCall("bash", { command: "cat x.ts" }, "4"));
    s.msg(user(400));
    s.msg(assistant(400));
    const ops = prepareCompaction(s.path(), settings(150))?.fileOps;
    expect([...(ops?.read ?? [])].sort()).toEqual(["old-read.ts", "r.ts"]);
    expect([...(ops?.written ?? [])]).toEqual(["w.ts"]);
    expect([...(ops?.edited ?? [])].sort()).toEqual(["e.ts", "old-mod.ts"]);
  });

  test("does not carry file lists from an extension summary (fromHook: true)", () => {
    const s = new TestSession();
    const first = s.msg(user(40));
    s.compaction("first", first, { fromHook: true, details: { readFiles: ["hook.ts"], modifiedFiles: [] } });
    s.msg(user(400));
    s.msg(assistant(400));
    s.msg(user(400));
    const ops = prepareCompaction(s.path(), settings(150))?.fileOps;
    expect([...(ops?.read ?? [])]).toEqual([]);
  });
});
