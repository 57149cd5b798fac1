import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CompactionEntry, SessionFile } from "@knightcode/session-store";
import { textReply } from "@knightcode/testkit";
import { type CompactionHooks, noopCompactionHooks } from "../src/hooks.ts";
import { prepareCompaction } from "../src/prepare.ts";
import { runCompaction } from "../src/run-compaction.ts";
import { sessionFilePort } from "../src/session-port.ts";
import { assistant, toolCall, usage, user } from "./helpers.ts";
import { mockSummarizer } from "./mock-model.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kc-compaction-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const settings = { enabled: true, reserveTokens: 1000, keepRecentTokens: 150 };

async function sessionWithHistory(): Promise<SessionFile> {
  const file = await SessionFile.create({ dir, cwd: dir });
  file.append({ type: "message", message: user(400) });
  file.append({ type: "message", message: toolCall("read", { path: "src/a.ts" }) });
  file.append({ type: "message", message: assistant(400, { usage: usage(900) }) });
  file.append({ type: "message", message: user(400) });
  file.append({ type: "message", message: assistant(400, { usage: usage(1200) }) });
  return file;
}

function recordingHooks(log: string[], overrides: CompactionHooks = {}): CompactionHooks {
  return {
    session_before_compact: async (event) => {
      log.push(`before:${event.reason}:${event.willRetry}`);
      return overrides.session_before_compact?.(event);
    },
    session_compact: (event) => {
      log.push(`compact:${event.fromExtension}:${event.compactionEntry.id}`);
    },
    session_compact_failed: (event) => {
      log.push(`failed:${event.reason}:${event.aborted}:${event.fromExtension}:${event.errorMessage ?? "-"}`);
    },
  };
}

describe("runCompaction", () => {
  test("appends the compaction with usage and file lists, calling the hooks in order", async () => {
    await using mock = await mockSummarizer();
    mock.server.enqueue({ ...textReply("SUMMARY"), usage: { input: 500, output: 40 } });
    const file = await sessionWithHistory();
    const log: string[] = [];
    let seen: unknown;
    const hooks = recordingHooks(log, {
      session_before_compact: (event) => {
        seen = {
          kept: event.preparation.firstKeptEntryId,
          branch: event.branchEntries.length,
          instructions: event.customInstructions,
          signal: event.signal instanceof AbortSignal,
        };
        return undefined;
      },
    });
    const outcome = await runCompaction({
      session: sessionFilePort(file),
      settings,
      summarizer: mock.summarizer,
      reason: "manual",
      willRetry: false,
      customInstructions: "be short",
      hooks,
    });
    if (outcome.status !== "compacted") throw new Error(JSON.stringify(outcome));
    const entry = outcome.entry;
    expect(log).toEqual(["before:manual:false", `compact:false:${entry.id}`]);
    expect(seen).toEqual({ kept: file.entries[3]?.id, branch: 5, instructions: "be short", signal: true });
    expect(entry.summary).toBe("SUMMARY\n\n<read-files>\nsrc/a.ts\n</read-files>");
    expect(entry.firstKeptEntryId).toBe(file.entries[3]?.id as string);
    expect(entry.tokensBefore).toBe(1200);
    expect(entry.details).toEqual({ readFiles: ["src/a.ts"], modifiedFiles: [] });
    expect(entry.usage).toMatchObject({ input: 500, output: 40 });
    expect(entry.fromHook).toBeUndefined();
    file.close();
    const reread = await SessionFile.openReadOnly(file.path);
    expect(reread.entries.at(-1)).toEqual(entry);
    expect(reread.context().messages.map((m) => m.role)).toEqual(["compactionSummary", "user", "assistant"]);
  });

  test("a cancelling session_before_compact appends nothing and reports an aborted failure", async () => {
    await using mock = await mockSummarizer();
    const file = await sessionWithHistory();
    const log: string[] = [];
    const outcome = await runCompaction({
      session: sessionFilePort(file),
      settings,
      summarizer: mock.summarizer,
      reason: "threshold",
      willRetry: false,
      hooks: recordingHooks(log, { session_before_compact: () => ({ cancel: true }) }),
    });
    expect(outcome).toEqual({ status: "cancelled" });
    expect(log).toEqual(["before:threshold:false", "failed:threshold:true:false:-"]);
    expect(file.entries.length).toBe(5);
    expect(mock.server.requests.length).toBe(0);
    file.close();
  });

  test("an extension-supplied summary is stored with fromHook and its usage, without a model request", async () => {
    await using mock = await mockSummarizer();
    const file = await sessionWithHistory();
    const log: string[] = [];
    const outcome = await runCompaction({
      session: sessionFilePort(file),
      settings,
      summarizer: mock.summarizer,
      reason: "manual",
      willRetry: false,
      hooks: recordingHooks(log, {
        session_before_compact: () => ({
          compaction: { summary: "EXT", details: { custom: 1 }, usage: usage(7, 3) },
        }),
      }),
    });
    if (outcome.status !== "compacted") throw new Error(JSON.stringify(outcome));
    expect(outcome.entry).toMatchObject({ summary: "EXT", fromHook: true, details: { custom: 1 } });
    expect(outcome.entry.usage).toMatchObject({ input: 7, output: 3 });
    expect(outcome.entry.firstKeptEntryId).toBe(file.entries[3]?.id as string);
    expect(log[1]).toBe(`compact:true:${outcome.entry.id}`);
    expect(mock.server.requests.length).toBe(0);
    file.close();
  });

  test("a failing summarizer appends nothing and reports the error", async () => {
    await using mock = await mockSummarizer();
    mock.server.enqueue({ error: { kind: "badRequest", message: "summarizer broke" } });
    const file = await sessionWithHistory();
    const log: string[] = [];
    const outcome = await runCompaction({
      session: sessionFilePort(file),
      settings,
      summarizer: mock.summarizer,
      reason: "overflow",
      willRetry: true,
      hooks: recordingHooks(log),
    });
    expect(outcome.status).toBe("failed");
    expect(log[0]).toBe("before:overflow:true");
    expect(log[1]).toStartWith("failed:overflow:false:false:Summarization failed");
    expect(file.entries.length).toBe(5);
    file.close();
  });

  test("aborting during summarization reports an aborted failure and appends nothing", async () => {
    await using mock = await mockSummarizer();
    mock.server.enqueue({ ...textReply("never finished"), stallAfterEvents: 1 });
    const file = await sessionWithHistory();
    const log: string[] = [];
    const controller = new AbortController();
    const pending = runCompaction({
      session: sessionFilePort(file),
      settings,
      summarizer: mock.summarizer,
      reason: "manual",
      willRetry: false,
      hooks: recordingHooks(log),
      signal: controller.signal,
    });
    await mock.server.waitForRequest(0, 10_000);
    controller.abort();
    expect(await pending).toEqual({ status: "cancelled" });
    expect(log).toEqual(["before:manual:false", "failed:manual:true:false:-"]);
    expect(file.entries.length).toBe(5);
    file.close();
  });

  test("a throwing session_before_compact is a failure, not a crash", async () => {
    await using mock = await mockSummarizer();
    const file = await sessionWithHistory();
    const log: string[] = [];
    const outcome = await runCompaction({
      session: sessionFilePort(file),
      settings,
      summarizer: mock.summarizer,
      reason: "threshold",
      willRetry: false,
      hooks: recordingHooks(log, {
        session_before_compact: () => {
          throw new Error("extension bug");
        },
      }),
    });
    expect(outcome).toMatchObject({
      status: "failed",
      errorMessage: "session_before_compact failed: extension bug",
    });
    expect(log.at(-1)).toBe("failed:threshold:false:false:session_before_compact failed: extension bug");
    expect(file.entries.length).toBe(5);
    file.close();
  });

  test("nothing to compact is a failure", async () => {
    await using mock = await mockSummarizer();
    const file = await SessionFile.create({ dir, cwd: dir });
    file.append({ type: "message", message: user(4) });
    const log: string[] = [];
    const outcome = await runCompaction({
      session: sessionFilePort(file),
      settings,
      summarizer: mock.summarizer,
      reason: "manual",
      willRetry: false,
      hooks: recordingHooks(log),
    });
    expect(outcome).toMatchObject({ status: "failed", errorMessage: "Nothing to compact" });
    expect(log).toEqual(["failed:manual:false:false:Nothing to compact"]);
    file.close();
  });

  test("tokensBefore is recomputed from the branch as it is when the entry is written", async () => {
    await using mock = await mockSummarizer();
    const file = await sessionWithHistory();
    mock.server.enqueue(() => {
      // Appended while the summarizer is working.
      file.append({ type: "custom_message", customType: "note", content: "n".repeat(4000), display: true });
      return textReply("SUMMARY");
    });
    const before = prepareCompaction(file.branch(), settings)?.tokensBefore;
    const outcome = await runCompaction({
      session: sessionFilePort(file),
      settings,
      summarizer: mock.summarizer,
      reason: "threshold",
      willRetry: false,
      hooks: noopCompactionHooks,
    });
    if (outcome.status !== "compacted") throw new Error(JSON.stringify(outcome));
    expect(before).toBe(1200);
    expect(outcome.entry.tokensBefore).toBe(2200);
    file.close();
  });

  test("the run keeps the settings and model it captured when they change underneath it", async () => {
    await using mock = await mockSummarizer();
    mock.server.enqueue(textReply("SUMMARY"));
    const file = await sessionWithHistory();
    const liveSettings = { ...settings };
    const summarizer = { ...mock.summarizer, model: { ...mock.model } };
    const outcome = await runCompaction({
      session: sessionFilePort(file),
      settings: liveSettings,
      summarizer,
      reason: "threshold",
      willRetry: false,
      hooks: {
        session_before_compact: (event) => {
          // A settings edit and a model switch arrive while the compaction is running.
          liveSettings.reserveTokens = 100;
          summarizer.model.id = "switched-model";
          expect(event.preparation.settings.reserveTokens).toBe(1000);
          return undefined;
        },
      },
    });
    expect(outcome.status).toBe("compacted");
    const body = mock.server.requests[0]?.body as { max_tokens: number; model: string };
    expect(body.max_tokens).toBe(800);
    expect(body.model).toBe("mock-model");
    file.close();
  });

  test("a retain-none compaction records its own ID, and the next one starts after it", async () => {
    await using mock = await mockSummarizer();
    mock.server.setDefault(textReply("ALL"));
    const file = await sessionWithHistory();
    const outcome = await runCompaction({
      session: sessionFilePort(file),
      settings: { ...settings, keepRecentTokens: 0 },
      summarizer: mock.summarizer,
      reason: "manual",
      willRetry: false,
    });
    if (outcome.status !== "compacted") throw new Error(JSON.stringify(outcome));
    const entry = outcome.entry as CompactionEntry;
    expect(entry.firstKeptEntryId).toBe(entry.id);
    expect(entry.id).toMatch(/^[0-9a-f]{8}$/);
    // Written through the store's explicit ID option: on disk the entry names itself too.
    const onDisk = (await SessionFile.openReadOnly(file.path)).getEntry(entry.id);
    expect(onDisk).toMatchObject({ type: "compaction", firstKeptEntryId: entry.id });
    expect(file.context().messages.map((m) => m.role)).toEqual(["compactionSummary"]);
    file.append({ type: "message", message: user(400) });
    file.append({ type: "message", message: assistant(400) });
    file.append({ type: "message", message: user(400) });
    file.append({ type: "message", message: assistant(400) });
    const next = prepareCompaction(file.branch(), settings);
    expect(next?.summarizeFromIndex).toBe(6);
    expect(next?.previousSummary).toStartWith("ALL");
    file.close();
  });
});
