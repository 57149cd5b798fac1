import { describe, expect, test } from "bun:test";
import { textReply } from "@knightcode/testkit";
import { prepareCompaction } from "../src/prepare.ts";
import { BRANCH_SUMMARY_PROMPT, COMPACTION_PROMPT, SUMMARIZER_SYSTEM_PROMPT } from "../src/prompts.ts";
import { addUsage, compact, generateSummaryWithUsage, SummarizationError } from "../src/summarize.ts";
import { assistant, TestSession, toolCall, toolResult, usage, user } from "./helpers.ts";
import { bodyOf, mockSummarizer, promptOf } from "./mock-model.ts";

describe("summary formats", () => {
  test("compaction summaries end with Critical Context; branch summaries stop after Next Steps", () => {
    const sections = (prompt: string) => [...prompt.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(sections(COMPACTION_PROMPT)).toEqual([
      "Goal",
      "Constraints & Preferences",
      "Progress",
      "Key Decisions",
      "Next Steps",
      "Critical Context",
    ]);
    expect(sections(BRANCH_SUMMARY_PROMPT)).toEqual([
      "Goal",
      "Constraints & Preferences",
      "Progress",
      "Key Decisions",
      "Next Steps",
    ]);
    expect(COMPACTION_PROMPT).toContain("### Done");
    expect(COMPACTION_PROMPT).toContain("### In Progress");
    expect(COMPACTION_PROMPT).toContain("### Blocked");
  });
});

describe("generateSummaryWithUsage", () => {
  test("sends the serialized transcript with prompt-cache writes disabled and returns text and usage", async () => {
    await using mock = await mockSummarizer();
    mock.server.enqueue({ ...textReply("## Goal\nShip it"), usage: { input: 1200, output: 80 } });
    const result = await generateSummaryWithUsage([user("Fix the bug"), assistant("Done")], mock.summarizer, {
      reserveTokens: 10_000,
    });
    expect(result.text).toBe("## Goal\nShip it");
    expect(result.usage).toMatchObject({ input: 1200, output: 80 });
    const request = mock.server.requests[0];
    if (!request) throw new Error("no request");
    expect(request.rawBody).not.toContain("cache_control");
    expect(bodyOf(request).max_tokens).toBe(8000);
    expect(bodyOf(request).system?.[0]?.text).toBe(SUMMARIZER_SYSTEM_PROMPT);
    const prompt = promptOf(request);
    expect(prompt).toStartWith("<conversation>\n[User]: Fix the bug\n\n[Assistant]: Done\n</conversation>");
    expect(prompt).toContain("## Critical Context");
    expect(prompt).not.toContain("<previous-summary>");
  });

  test("updates a previous summary iteratively and adds custom instructions", async () => {
    await using mock = await mockSummarizer({ maxTokens: 100 });
    mock.server.enqueue(textReply("updated"));
    await generateSummaryWithUsage([user("more")], mock.summarizer, {
      reserveTokens: 10_000,
      previousSummary: "OLD SUMMARY",
      customInstructions: "focus on tests",
    });
    const request = mock.server.requests[0];
    if (!request) throw new Error("no request");
    const prompt = promptOf(request);
    expect(prompt).toContain("<previous-summary>\nOLD SUMMARY\n</previous-summary>");
    expect(prompt).toContain("NEW messages");
    expect(prompt).toEndWith("Additional focus: focus on tests");
    // The output budget never exceeds what the model can produce.
    expect(bodyOf(request).max_tokens).toBe(100);
  });

  test("a provider error becomes a SummarizationError that is not an abort", async () => {
    await using mock = await mockSummarizer();
    mock.server.enqueue({ error: { kind: "badRequest", message: "nope" } });
    const error = await generateSummaryWithUsage([user("x")], mock.summarizer, { reserveTokens: 1000 }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(SummarizationError);
    expect(error.aborted).toBe(false);
    expect(error.message).toContain("Summarization failed");
  });

  test("an aborted request is reported as aborted", async () => {
    await using mock = await mockSummarizer();
    mock.server.enqueue({ ...textReply("slow"), stallAfterEvents: 1 });
    const controller = new AbortController();
    const pending = generateSummaryWithUsage([user("x")], mock.summarizer, {
      reserveTokens: 1000,
      signal: controller.signal,
    }).catch((e) => e);
    await mock.server.waitForRequest(0, 10_000);
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(SummarizationError);
    expect(error.aborted).toBe(true);
  });
});

describe("compact", () => {
  function splitSession(): TestSession {
    const s = new TestSession();
    s.msg(user("first request"));
    s.msg(toolCall("read", { path: "old.ts" }, "r1"));
    s.msg(toolResult(40, "r1"));
    s.msg(user("second request"));
    s.msg(toolCall("edit", { path: "new.ts" }, "e1"));
    s.msg(toolResult(40, "e1"));
    s.msg(assistant(400));
    s.msg(toolResult(400));
    return s;
  }

  test("a split span yields two summaries merged, summed usage and file lists appended", async () => {
    await using mock = await mockSummarizer();
    mock.server.setDefault((request) => {
      const prompt = promptOf(request);
      return prompt.includes("## Original Request")
        ? { ...textReply("PREFIX SUMMARY"), usage: { input: 10, output: 1 } }
        : { ...textReply("HISTORY SUMMARY"), usage: { input: 100, output: 20 } };
    });
    const preparation = prepareCompaction(splitSession().path(), {
      enabled: true,
      reserveTokens: 1000,
      keepRecentTokens: 150,
    });
    if (!preparation) throw new Error("no plan");
    expect(preparation.isSplitTurn).toBe(true);
    const result = await compact(preparation, mock.summarizer);
    expect(result.summary).toBe(
      "HISTORY SUMMARY\n\n---\n\n**Earlier part of the current request (split span):**\n\nPREFIX SUMMARY" +
        "\n\n<read-files>\nold.ts\n</read-files>\n\n<modified-files>\nnew.ts\n</modified-files>",
    );
    expect(result.details).toEqual({ readFiles: ["old.ts"], modifiedFiles: ["new.ts"] });
    expect(result.usage).toMatchObject({ input: 110, output: 21, totalTokens: 131 });
    expect(result.firstKeptEntryId).toBe(preparation.firstKeptEntryId);
    expect(result.tokensBefore).toBe(preparation.tokensBefore);
    const budgets = mock.server.requests.map((r) => bodyOf(r).max_tokens).sort((a, b) => a - b);
    expect(budgets).toEqual([500, 800]);
    for (const request of mock.server.requests) expect(request.rawBody).not.toContain("cache_control");
  });

  test("a split span with no earlier history asks only for the prefix summary", async () => {
    await using mock = await mockSummarizer();
    mock.server.setDefault(textReply("PREFIX"));
    const s = new TestSession();
    s.msg(user("only request"));
    s.msg(toolCall("read", { path: "a" }, "r1"));
    s.msg(toolResult(40, "r1"));
    s.msg(assistant(400));
    s.msg(toolResult(400));
    const preparation = prepareCompaction(s.path(), {
      enabled: true,
      reserveTokens: 1000,
      keepRecentTokens: 150,
    });
    if (!preparation) throw new Error("no plan");
    const result = await compact(preparation, mock.summarizer);
    expect(mock.server.requests.length).toBe(1);
    expect(result.summary).toStartWith("No earlier history.\n\n---\n\n");
  });

  test("custom instructions reach the history summary", async () => {
    await using mock = await mockSummarizer();
    mock.server.setDefault(textReply("S"));
    const s = new TestSession();
    s.msg(user(400));
    s.msg(assistant(400));
    s.msg(user(400));
    s.msg(assistant(400));
    const preparation = prepareCompaction(s.path(), {
      enabled: true,
      reserveTokens: 1000,
      keepRecentTokens: 150,
    });
    if (!preparation) throw new Error("no plan");
    expect(preparation.isSplitTurn).toBe(false);
    await compact(preparation, mock.summarizer, { customInstructions: "keep the API names" });
    const request = mock.server.requests[0];
    if (!request) throw new Error("no request");
    expect(promptOf(request)).toEndWith("Additional focus: keep the API names");
  });

  test("custom instructions reach both summaries of a split span", async () => {
    await using mock = await mockSummarizer();
    mock.server.setDefault(textReply("S"));
    const preparation = prepareCompaction(splitSession().path(), {
      enabled: true,
      reserveTokens: 1000,
      keepRecentTokens: 150,
    });
    if (!preparation) throw new Error("no plan");
    expect(preparation.isSplitTurn).toBe(true);
    await compact(preparation, mock.summarizer, { customInstructions: "keep the API names" });
    expect(mock.server.requests).toHaveLength(2);
    for (const request of mock.server.requests) {
      expect(promptOf(request)).toEndWith("Additional focus: keep the API names");
    }
  });
});

test("addUsage sums every field", () => {
  expect(addUsage(undefined)).toBeUndefined();
  expect(addUsage(usage(1, 2), usage(3, 4))).toMatchObject({ input: 4, output: 6, totalTokens: 10 });
});
