import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionFile } from "@knightcode/session-store";
import { textReply } from "@knightcode/testkit";
import {
  collectEntriesForBranchSummary,
  generateBranchSummary,
  NO_SUMMARY_MODEL_MESSAGE,
  prepareBranchEntries,
  summarizeBranch,
} from "../src/branch-summary.ts";
import { assistant, TestSession, toolCall, toolResult, user } from "./helpers.ts";
import { mockSummarizer, promptOf } from "./mock-model.ts";

/** root (e0, e1), abandoned branch e2..e5 (old leaf), new branch e6 (target). */
function tree(): TestSession {
  const s = new TestSession();
  s.msg(user("start"));
  s.msg(assistant("ok"));
  s.msg(user("try A"));
  s.msg(toolCall("read", { path: "a.ts" }));
  s.msg(toolResult("contents", "call-read"));
  s.msg(assistant("A done"));
  s.leaf = "e1";
  s.msg(user("try B"));
  return s;
}

const lookup = (s: TestSession) => (id: string) => s.get(id);

describe("collectEntriesForBranchSummary", () => {
  test("walks from the old leaf back to the common ancestor", () => {
    const s = tree();
    const branch = collectEntriesForBranchSummary(lookup(s), "e5", "e6");
    expect(branch.commonAncestorId).toBe("e1");
    expect(branch.entries.map((e) => e.id)).toEqual(["e2", "e3", "e4", "e5"]);
    expect(branch.oldPath.length).toBe(6);
  });

  test("nothing to collect without an old leaf or when the target is on the old path", () => {
    const s = tree();
    expect(collectEntriesForBranchSummary(lookup(s), null, "e6").entries).toEqual([]);
    const back = collectEntriesForBranchSummary(lookup(s), "e5", "e3");
    expect(back.commonAncestorId).toBe("e3");
    expect(back.entries.map((e) => e.id)).toEqual(["e4", "e5"]);
  });
});

describe("prepareBranchEntries", () => {
  test("leaves tool results out and tracks files", () => {
    const s = tree();
    const prepared = prepareBranchEntries(collectEntriesForBranchSummary(lookup(s), "e5", "e6"));
    expect(prepared.messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant"]);
    expect([...prepared.fileOps.read]).toEqual(["a.ts"]);
  });

  test("fills the budget newest first", () => {
    const s = new TestSession();
    s.msg(user("root"));
    s.msg(user(400));
    s.msg(assistant(400));
    s.msg(user(40));
    const prepared = prepareBranchEntries(collectEntriesForBranchSummary(lookup(s), "e3", "e0"), 150);
    expect(prepared.messages).toEqual([assistant(400), user(40)]);
    expect(prepared.totalTokens).toBe(110);
  });

  test("carries file lists from nested default branch summaries but not from extension ones", () => {
    const s = new TestSession();
    s.msg(user("root"));
    s.add({
      type: "branch_summary",
      summary: "x",
      fromId: "z",
      details: { readFiles: ["nested.ts"], modifiedFiles: ["m.ts"] },
    });
    s.add({
      type: "branch_summary",
      summary: "y",
      fromId: "z",
      fromHook: true,
      details: { readFiles: ["hook.ts"], modifiedFiles: [] },
    });
    s.msg(user("after"));
    const prepared = prepareBranchEntries(collectEntriesForBranchSummary(lookup(s), "e3", "e0"));
    expect([...prepared.fileOps.read]).toEqual(["nested.ts"]);
    expect([...prepared.fileOps.edited]).toEqual(["m.ts"]);
  });

  test("omitted entries are not summarized", () => {
    const s = tree();
    s.leaf = "e5";
    s.omit("e5");
    const prepared = prepareBranchEntries(collectEntriesForBranchSummary(lookup(s), "e7", "e6"));
    expect(prepared.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});

describe("generateBranchSummary", () => {
  test("uses the branch format, no cache writes, and appends file lists and usage", async () => {
    await using mock = await mockSummarizer();
    mock.server.enqueue({ ...textReply("## Goal\nA"), usage: { input: 50, output: 5 } });
    const s = tree();
    const prepared = prepareBranchEntries(collectEntriesForBranchSummary(lookup(s), "e5", "e6"));
    const result = await generateBranchSummary(prepared, mock.summarizer, { customInstructions: "be brief" });
    expect(result.summary).toBe(
      "Summary of a conversation branch the user explored before coming back here:\n\n## Goal\nA\n\n<read-files>\na.ts\n</read-files>",
    );
    expect(result.details).toEqual({ readFiles: ["a.ts"], modifiedFiles: [] });
    expect(result.usage).toMatchObject({ input: 50, output: 5 });
    const request = mock.server.requests[0];
    if (!request) throw new Error("no request");
    expect(request.rawBody).not.toContain("cache_control");
    const prompt = promptOf(request);
    expect(prompt).toContain("[User]: try A");
    expect(prompt).not.toContain("[Tool result]");
    expect(prompt).not.toContain("## Critical Context");
    expect(prompt).toEndWith("Additional focus: be brief");
  });
});

describe("summarizeBranch", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kc-branch-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test("the summary entry lands at the navigation point with fromId = the old leaf", async () => {
    await using mock = await mockSummarizer();
    mock.server.enqueue(textReply("SUMMARY"));
    const file = await SessionFile.create({ dir, cwd: dir });
    const root = file.append({ type: "message", message: user("start") });
    file.append({ type: "message", message: user("abandoned") });
    const oldLeaf = file.append({ type: "message", message: assistant("abandoned answer") });
    const seen: unknown[] = [];
    const outcome = await summarizeBranch({
      getEntry: (id) => file.getEntry(id),
      oldLeafId: oldLeaf.id,
      targetId: root.id,
      summarize: true,
      summarizer: mock.summarizer,
      reserveTokens: 16384,
      hooks: {
        session_before_tree: (event) => {
          seen.push(event.preparation);
          return undefined;
        },
      },
    });
    if (outcome.status !== "summarized") throw new Error(JSON.stringify(outcome));
    expect(seen).toEqual([
      {
        targetId: root.id,
        oldLeafId: oldLeaf.id,
        commonAncestorId: root.id,
        entriesToSummarize: file.entries.slice(1),
        userWantsSummary: true,
        customInstructions: undefined,
      },
    ]);
    expect(outcome.draft.fromId).toBe(oldLeaf.id);
    file.setLeaf(root.id);
    const entry = file.append({ type: "branch_summary", ...outcome.draft });
    expect(entry.parentId).toBe(root.id);
    expect(file.context().messages.map((m) => m.role)).toEqual(["user", "branchSummary"]);
    file.close();
  });

  test("session_before_tree may cancel the navigation or supply the summary", async () => {
    await using mock = await mockSummarizer();
    const s = tree();
    const common = {
      getEntry: lookup(s),
      oldLeafId: "e5",
      targetId: "e6",
      summarize: true,
      summarizer: mock.summarizer,
      reserveTokens: 1000,
    };
    expect(
      await summarizeBranch({ ...common, hooks: { session_before_tree: () => ({ cancel: true }) } }),
    ).toEqual({
      status: "cancelled",
    });
    const supplied = await summarizeBranch({
      ...common,
      hooks: { session_before_tree: () => ({ summary: { summary: "EXT", details: { k: 1 } } }) },
    });
    expect(supplied).toEqual({
      status: "summarized",
      draft: { summary: "EXT", fromId: "e5", fromHook: true, details: { k: 1 } },
      fromExtension: true,
    });
    expect(mock.server.requests.length).toBe(0);
  });

  test("no summary unless asked; a failing summarizer is reported", async () => {
    await using mock = await mockSummarizer();
    const s = tree();
    const common = {
      getEntry: lookup(s),
      oldLeafId: "e5",
      targetId: "e6",
      summarizer: mock.summarizer,
      reserveTokens: 1000,
    };
    expect(await summarizeBranch({ ...common, summarize: false })).toEqual({ status: "skipped" });
    mock.server.enqueue({ error: { kind: "badRequest" } });
    const failed = await summarizeBranch({ ...common, summarize: true });
    expect(failed).toMatchObject({ status: "failed", aborted: false });
  });

  test("without a summarizer the hook still decides; a summary nobody gave fails with the no-model message", async () => {
    const s = tree();
    const common = { getEntry: lookup(s), oldLeafId: "e5", targetId: "e6", reserveTokens: 1000 };
    const asked: boolean[] = [];
    const hooks = {
      session_before_tree: ({ preparation }: { preparation: { userWantsSummary: boolean } }) => {
        asked.push(preparation.userWantsSummary);
        return { summary: { summary: "FROM THE HOOK" } };
      },
    };
    expect(await summarizeBranch({ ...common, summarize: true, hooks })).toEqual({
      status: "summarized",
      draft: { summary: "FROM THE HOOK", fromId: "e5", fromHook: true },
      fromExtension: true,
    });
    expect(await summarizeBranch({ ...common, summarize: false })).toEqual({ status: "skipped" });
    expect(await summarizeBranch({ ...common, summarize: true })).toEqual({
      status: "failed",
      errorMessage: NO_SUMMARY_MODEL_MESSAGE,
      aborted: false,
    });
    expect(asked).toEqual([true]);
  });
});
