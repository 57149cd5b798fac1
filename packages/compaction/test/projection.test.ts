import { describe, expect, test } from "bun:test";
import { buildSessionContext } from "@knightcode/session-store";
import { contextMessages, keptStartIndex, projectedContextTokens, projectPath } from "../src/projection.ts";
import { assistant, TestSession, usage, user } from "./helpers.ts";

describe("projectPath", () => {
  test("omitted entries have no message; replacements substitute theirs", () => {
    const s = new TestSession();
    const u = s.msg(user("hello"));
    const a = s.msg(assistant("bad"));
    s.add({ type: "context_edit", omit: [a], replace: [{ entryId: u, message: user("edited") }] });
    const view = projectPath(s.path());
    expect(view.messages[0]).toEqual(user("edited"));
    expect(view.messages[1]).toBeUndefined();
    expect(view.omitted.has(a)).toBe(true);
  });

  test("custom messages and branch summaries become context; metadata and compactions do not", () => {
    const s = new TestSession();
    s.add({ type: "custom_message", customType: "note", content: "c", display: true });
    s.add({ type: "branch_summary", summary: "went elsewhere", fromId: "x" });
    s.meta();
    s.compaction("sum", "e0");
    const view = projectPath(s.path());
    expect(view.messages.map((m) => m?.role)).toEqual(["custom", "branchSummary", undefined, undefined]);
    expect(view.latestCompactionIndex).toBe(3);
  });
});

describe("contextMessages", () => {
  test("summary, kept entries, then what follows — the same messages the store builds", () => {
    const s = new TestSession();
    s.msg(user("1"));
    s.msg(assistant("a"));
    const kept = s.msg(user("2"));
    s.msg(assistant("b"));
    s.compaction("summary", kept);
    const omitted = s.msg(assistant("oops", { stopReason: "error" }));
    s.omit(omitted);
    s.msg(user("3"));
    const messages = contextMessages(projectPath(s.path()));
    expect(messages.map((m) => m.role)).toEqual(["compactionSummary", "user", "assistant", "user"]);
    expect(messages).toEqual(buildSessionContext(s.path()).messages);
  });

  test("a retain-none compaction keeps nothing before it", () => {
    const s = new TestSession();
    s.msg(user("1"));
    const c = s.compaction("summary", "self");
    s.msg(user("2"));
    const view = projectPath(s.path());
    expect(keptStartIndex(view, s.index(c))).toBeUndefined();
    expect(contextMessages(view).map((m) => m.role)).toEqual(["compactionSummary", "user"]);
  });

  test("context tokens ignore usage measured before the latest compaction", () => {
    const s = new TestSession();
    const kept = s.msg(assistant(4, { usage: usage(150_000) }));
    s.compaction("s".repeat(400), kept);
    s.msg(user(40));
    // summary 100 + kept assistant 1 + user 10; the stale 150,000 is not trusted.
    expect(projectedContextTokens(projectPath(s.path()))).toBe(111);
    s.msg(assistant(4, { usage: usage(2_000) }));
    expect(projectedContextTokens(projectPath(s.path()))).toBe(2_000);
  });
});
