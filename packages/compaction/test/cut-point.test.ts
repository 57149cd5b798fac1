import { describe, expect, test } from "bun:test";
import { canAdvanceIntoSuffix, findCutPoint, invisibleSuffixStart } from "../src/cut-point.ts";
import { projectPath } from "../src/projection.ts";
import { assistant, TestSession, toolCall, toolResult, user } from "./helpers.ts";

function cut(s: TestSession, keep: number) {
  const path = s.path();
  return findCutPoint(projectPath(path), 0, path.length, keep);
}

describe("findCutPoint", () => {
  test("keeps everything (leading metadata included) while the budget is not reached", () => {
    const s = new TestSession();
    s.meta();
    s.msg(user(400));
    s.msg(assistant(400));
    expect(cut(s, 1000)).toMatchObject({ firstKeptIndex: 0, isSplitTurn: false });
  });

  test("cuts at the user message where the budget is reached", () => {
    const s = new TestSession();
    s.msg(user(400));
    s.msg(assistant(400));
    s.msg(user(400));
    s.msg(assistant(400));
    expect(cut(s, 150)).toEqual({
      firstKeptIndex: 2,
      turnStartIndex: -1,
      isSplitTurn: false,
      advancedIntoSuffix: false,
    });
  });

  test("never cuts at a tool result: moves to the next valid point", () => {
    const s = new TestSession();
    s.msg(user(40));
    s.msg(toolCall("read", { path: "a" }));
    s.msg(toolResult(800));
    s.msg(assistant(40));
    expect(cut(s, 100)).toMatchObject({ firstKeptIndex: 3, turnStartIndex: 0, isSplitTurn: true });
  });

  test("with only tool results after the crossing, the call is kept with them", () => {
    const s = new TestSession();
    s.msg(user(40));
    s.msg(toolCall("read", { path: "a" }));
    s.msg(toolResult(800));
    expect(cut(s, 100)).toMatchObject({ firstKeptIndex: 1, turnStartIndex: 0, isSplitTurn: true });
  });

  test("metadata just before the cut is pulled into the kept part, which is still a span start", () => {
    const s = new TestSession();
    s.msg(user(400));
    s.msg(assistant(400));
    s.meta();
    s.meta();
    s.msg(user(400));
    s.msg(assistant(400));
    expect(cut(s, 150)).toEqual({
      firstKeptIndex: 2,
      turnStartIndex: -1,
      isSplitTurn: false,
      advancedIntoSuffix: false,
    });
  });

  test("a span larger than the budget is split at an assistant message (the spec's example)", () => {
    const s = new TestSession();
    s.meta();
    s.msg(user(40));
    s.msg(toolCall("read", { path: "a" }, "c1"));
    s.msg(toolResult(40, "c1"));
    s.msg(toolCall("read", { path: "b" }, "c2"));
    s.msg(toolResult(40, "c2"));
    s.msg(toolResult(40, "c2"));
    s.msg(assistant(400));
    s.msg(toolResult(400));
    expect(cut(s, 150)).toEqual({
      firstKeptIndex: 7,
      turnStartIndex: 1,
      isSplitTurn: true,
      advancedIntoSuffix: false,
    });
  });

  test("omitted entries do not count toward the budget", () => {
    const build = (omit: boolean) => {
      const s = new TestSession();
      s.msg(user(400));
      s.msg(assistant(400));
      s.msg(user(40));
      const big = s.msg(assistant(8000));
      if (omit) s.omit(big);
      s.msg(user(40));
      s.msg(assistant(40));
      return cut(s, 250);
    };
    expect(build(false).firstKeptIndex).toBe(3);
    expect(build(true).firstKeptIndex).toBe(0);
  });

  test("replacement messages are what gets estimated", () => {
    const s = new TestSession();
    s.msg(user(400));
    s.msg(assistant(400));
    const small = s.msg(user(4));
    s.msg(assistant(4));
    expect(cut(s, 101).firstKeptIndex).toBe(1);
    s.add({ type: "context_edit", replace: [{ entryId: small, message: user(4000) }] });
    expect(cut(s, 101).firstKeptIndex).toBe(2);
  });

  test("a budget of zero keeps nothing", () => {
    const s = new TestSession();
    s.msg(user(4));
    s.msg(assistant(4));
    expect(cut(s, 0).firstKeptIndex).toBe(2);
  });
});

describe("advancing the kept boundary into a context-invisible suffix", () => {
  function overBudgetInput(): { s: TestSession; input: string; attempt: string } {
    const s = new TestSession();
    s.msg(user(400));
    s.msg(assistant(400));
    const input = s.msg(user(4000));
    const attempt = s.msg(assistant("", { stopReason: "error", errorMessage: "prompt is too long" }));
    return { s, input, attempt };
  }

  test("an over-budget input followed by an omitted attempt is summarized; the suffix is kept", () => {
    const { s, attempt } = overBudgetInput();
    s.omit(attempt);
    expect(cut(s, 500)).toEqual({
      firstKeptIndex: 3,
      turnStartIndex: -1,
      isSplitTurn: false,
      advancedIntoSuffix: true,
    });
  });

  test("intrinsically invisible metadata may coexist with the omission", () => {
    const { s, attempt } = overBudgetInput();
    s.meta();
    s.omit(attempt);
    s.add({ type: "label", targetId: attempt, label: "x" });
    expect(cut(s, 500)).toMatchObject({ firstKeptIndex: 3, advancedIntoSuffix: true });
  });

  test("metadata alone does not move the cut", () => {
    const s = new TestSession();
    s.msg(user(400));
    s.msg(assistant(400));
    s.msg(user(4000));
    s.meta();
    expect(cut(s, 500)).toMatchObject({ firstKeptIndex: 2, advancedIntoSuffix: false });
  });

  test("a custom message appended after the omission does not move the cut", () => {
    const { s, attempt } = overBudgetInput();
    s.omit(attempt);
    s.add({ type: "custom_message", customType: "note", content: "n".repeat(40), display: true });
    expect(cut(s, 500)).toMatchObject({ firstKeptIndex: 2, advancedIntoSuffix: false });
  });

  test("a replacement of the candidate input blocks advancement", () => {
    const { s, input, attempt } = overBudgetInput();
    s.add({ type: "context_edit", omit: [attempt], replace: [{ entryId: input, message: user(4001) }] });
    expect(cut(s, 500)).toMatchObject({ firstKeptIndex: 2, advancedIntoSuffix: false });
  });

  test("a replacement of the summarized prefix blocks advancement", () => {
    const { s, attempt } = overBudgetInput();
    s.add({ type: "context_edit", omit: [attempt], replace: [{ entryId: "e0", message: user(401) }] });
    expect(cut(s, 500).advancedIntoSuffix).toBe(false);
  });

  test("a replacement of a suffix entry that is ultimately omitted is safe", () => {
    const { s, attempt } = overBudgetInput();
    s.add({ type: "context_edit", replace: [{ entryId: attempt, message: assistant("retry text") }] });
    s.omit(attempt);
    expect(cut(s, 500)).toMatchObject({ firstKeptIndex: 3, advancedIntoSuffix: true });
  });

  test("an input that fits the budget stays verbatim despite the omission", () => {
    const s = new TestSession();
    s.msg(user(4000));
    s.msg(assistant(400));
    s.msg(user(400));
    const attempt = s.msg(assistant("", { stopReason: "error" }));
    s.omit(attempt);
    expect(cut(s, 150)).toMatchObject({ firstKeptIndex: 1, advancedIntoSuffix: false });
  });

  test("suffix helpers", () => {
    const { s, attempt } = overBudgetInput();
    const edit = s.omit(attempt);
    const view = projectPath(s.path());
    expect(invisibleSuffixStart(view, 0, 5)).toBe(3);
    expect(canAdvanceIntoSuffix(view, 3, 5)).toBe(true);
    expect(canAdvanceIntoSuffix(view, 4, 5)).toBe(false);
    expect(edit).toBe("e4");
  });
});
