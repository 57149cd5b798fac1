import { describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { projectDirName, SessionFile, sessionsRoot } from "@knightcode/session-store";
import { textReply } from "@knightcode/testkit";
import { remapBranch } from "../src/threads/session-creation.ts";
import { createHarness } from "./support/harness.ts";

/**
 * The fsyncs made while `run` runs, as the inodes they named: `fsync` on the thread pool
 * and `fsyncSync` on the main thread.
 */
async function countFsyncs<T>(
  run: () => Promise<T>,
): Promise<{ result: T; background: number[]; onMainThread: number[] }> {
  const background: number[] = [];
  const onMainThread: number[] = [];
  const { fsync, fsyncSync } = fs;
  const pool = spyOn(fs, "fsync").mockImplementation(((fd: number, callback: (error: unknown) => void) => {
    background.push(fs.fstatSync(fd).ino);
    fsync(fd, callback);
  }) as typeof fs.fsync);
  const main = spyOn(fs, "fsyncSync").mockImplementation((fd: number) => {
    onMainThread.push(fs.fstatSync(fd).ino);
    fsyncSync(fd);
  });
  try {
    return { result: await run(), background, onMainThread };
  } finally {
    pool.mockRestore();
    main.mockRestore();
  }
}

/**
 * A new transcript's fsyncs: one of the file (header and entries together) and one of
 * its directory on the thread pool, and nothing else; the main thread, unless the pool
 * had already reported, repeats the same two (cheaply) before the answer.
 */
function expectNewTranscriptFsyncs(
  path: string,
  seen: { background: number[]; onMainThread: number[] },
): void {
  const pair = [fs.statSync(path).ino, fs.statSync(dirname(path)).ino];
  expect(seen.background).toEqual(pair);
  expect([[], pair]).toContainEqual(seen.onMainThread);
}

const linesOf = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("fork copies", () => {
  test("a copied retain-none compaction records the copy's own new ID, and references follow the copy", async () => {
    await using h = await createHarness();
    const dir = join(sessionsRoot(h.dir.agentDir), projectDirName(h.dir.cwd));
    const source = await SessionFile.create({ dir, cwd: h.dir.cwd });
    source.append({ type: "model_change", provider: h.model.provider, modelId: h.model.id });
    const start = source.append({ type: "turn_start", startedAt: 1 });
    source.append({ type: "message", message: { role: "user", content: "first question", timestamp: 2 } });
    source.append({ type: "turn_end", turnId: start.id, outcome: "completed", completedAt: 3 });
    const own = source.reserveEntryId();
    source.append(
      { type: "compaction", summary: "SUMMARY-OF-EVERYTHING", firstKeptEntryId: own, tokensBefore: 10 },
      { id: own },
    );
    source.sync();
    source.close();

    const { thread } = await h.manager.forkThread({ threadId: source.id }, h.desktop());
    const copied = linesOf(thread.path!);
    const compaction = copied.find((e) => e.type === "compaction")!;
    expect(compaction.id).not.toBe(own);
    expect(compaction.firstKeptEntryId).toBe(compaction.id);
    const copiedStart = copied.find((e) => e.type === "turn_start")!;
    expect(copied.find((e) => e.type === "turn_end")?.turnId).toBe(copiedStart.id);

    // The fork's context starts after its own compaction: the summary, not the summarized question.
    h.server.enqueue(textReply("ok"));
    await h.manager.startTurn({ threadId: thread.id, text: "go on" }, h.desktop());
    const request = await h.server.waitForRequest(0);
    expect(request.rawBody.includes("SUMMARY-OF-EVERYTHING")).toBe(true);
    expect(request.rawBody.includes("first question")).toBe(false);
    await h.waitFor((n) => n.method === "thread/turn/completed");
  });
});

describe("first entries are written with the header", () => {
  test("thread/start: settings entries follow the header in order, made durable together", async () => {
    await using h = await createHarness();
    const { result: started, ...seen } = await countFsyncs(() =>
      h.manager.startThread(
        { cwd: h.dir.cwd, model: { provider: h.model.provider, id: h.model.id }, name: "named" },
        h.desktop(),
      ),
    );
    expectNewTranscriptFsyncs(started.thread.path!, seen);
    const lines = linesOf(started.thread.path!);
    expect(lines.map((e) => e.type)).toEqual(["approval_mode", "model_change", "session_info"]);
    expect(lines.map((e) => e.parentId)).toEqual([null, lines[0]!.id, lines[1]!.id]);
    expect(lines[1]).toMatchObject({ provider: h.model.provider, modelId: h.model.id });
    expect(lines[2]).toMatchObject({ name: "named" });
    expect(started.thread.name).toBe("named");

    // The loaded thread appends after them, and the file opens again after unload.
    h.server.enqueue(textReply("ok"));
    await h.manager.startTurn({ threadId: started.thread.id, text: "hi" }, h.desktop());
    await h.waitFor((n) => n.method === "thread/turn/completed");
    await h.manager.closeAll();
    const reopened = await SessionFile.openReadOnly(started.thread.path!);
    expect(reopened.entries.slice(0, 3).map((e) => e.id)).toEqual(lines.map((e) => e.id as string));
    expect(reopened.entries.slice(3).some((e) => e.type === "turn_end")).toBe(true);
    expect(reopened.skippedLines).toBe(0);
  });

  test("thread/fork: the copied branch and its name are written with the header, made durable together", async () => {
    await using h = await createHarness();
    const started = await h.manager.startThread({ cwd: h.dir.cwd, name: "src" }, h.desktop());
    const { result: forked, ...seen } = await countFsyncs(() =>
      h.manager.forkThread({ threadId: started.thread.id }, h.desktop()),
    );
    expectNewTranscriptFsyncs(forked.thread.path!, seen);
    const source = linesOf(started.thread.path!);
    const copy = linesOf(forked.thread.path!);
    expect(copy.map((e) => e.type)).toEqual([...source.map((e) => e.type), "session_info"]);
    expect(copy.at(-1)).toMatchObject({ name: "src (fork)" });
    expect(copy.map((e) => e.parentId)).toEqual([null, ...copy.slice(0, -1).map((e) => e.id)]);
    expect(copy.map((e) => e.timestamp).slice(0, -1)).toEqual(source.map((e) => e.timestamp));
  });

  test("remapBranch gives fresh unique IDs and rewrites references, a self-reference to the copy itself", () => {
    const entries = [
      { type: "turn_start", id: "00000001", parentId: null, timestamp: "t", startedAt: 1 },
      {
        type: "turn_end",
        id: "00000002",
        parentId: "00000001",
        timestamp: "t",
        turnId: "00000001",
        outcome: "completed",
        completedAt: 2,
      },
      {
        type: "compaction",
        id: "00000003",
        parentId: "00000002",
        timestamp: "t",
        summary: "s",
        firstKeptEntryId: "00000003",
        tokensBefore: 1,
      },
    ] as never;
    const { entries: copies, ids } = remapBranch(entries);
    const newIds = copies.map((e) => (e as { id: string }).id);
    expect(new Set(newIds).size).toBe(3);
    expect(newIds).toEqual(["00000001", "00000002", "00000003"].map((id) => ids.get(id)!));
    expect(copies[1]).toMatchObject({ turnId: newIds[0] });
    expect(copies[2]).toMatchObject({ firstKeptEntryId: newIds[2] });
    for (const copy of copies) expect("parentId" in copy).toBe(false);
  });
});
