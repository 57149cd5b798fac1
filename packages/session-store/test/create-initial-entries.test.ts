import { afterEach, describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { lockPathFor, SessionFile } from "../src/index.ts";
import { tempDir } from "./helpers/temp-dir.ts";

function fileLines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * Counts fsyncs (file and directory) made while `run` runs: `fsync` on the thread pool,
 * as `create` does, and `fsyncSync` on the main thread, as `sync` does.
 */
async function countFsyncs<T>(
  run: () => Promise<T>,
): Promise<{ result: T; fsyncs: number; onMainThread: number }> {
  const background = spyOn(fs, "fsync");
  const onMain = spyOn(fs, "fsyncSync");
  try {
    const result = await run();
    const onMainThread = onMain.mock.calls.length;
    return { result, fsyncs: background.mock.calls.length + onMainThread, onMainThread };
  } finally {
    background.mockRestore();
    onMain.mockRestore();
  }
}

describe("SessionFile.create with initialEntries", () => {
  afterEach(() => {
    // A failed assertion inside countFsyncs must not leave the spies installed.
    (fs.fsync as unknown as { mockRestore?: () => void }).mockRestore?.();
    (fs.fsyncSync as unknown as { mockRestore?: () => void }).mockRestore?.();
  });

  test("writes the entries after the header, in order, chained as appends would be", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({
      dir: dir.path,
      cwd: "/proj",
      initialEntries: [
        { type: "approval_mode", mode: "ask" },
        { type: "model_change", provider: "mock", modelId: "m1" },
        { type: "thinking_level_change", thinkingLevel: "high", timestamp: "2026-01-02T03:04:05.000Z" },
        { type: "session_info", name: "first" },
      ],
    });
    const lines = fileLines(file.path);
    expect(lines.map((l) => l.type)).toEqual([
      "session",
      "approval_mode",
      "model_change",
      "thinking_level_change",
      "session_info",
    ]);
    const ids = file.entries.map((e) => e.id);
    expect(lines.slice(1).map((l) => l.id)).toEqual(ids);
    expect(lines.slice(1).map((l) => l.parentId)).toEqual([null, ...ids.slice(0, -1)]);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(new Set(ids).size).toBe(4);
    expect(lines[3]!.timestamp).toBe("2026-01-02T03:04:05.000Z");
    expect(typeof lines[1]!.timestamp).toBe("string");
    expect(file.leafId).toBe(ids[3]!);
    expect(file.name).toBe("first");
    expect(file.context().model).toEqual({ provider: "mock", modelId: "m1" });
    expect(file.entryBytes(ids[0]!)).toBe(Buffer.byteLength(`${JSON.stringify(lines[1])}\n`));

    // Appends continue the chain; the file re-opens with every entry once the owner closes it.
    const next = file.append({ type: "session_info", name: "second" });
    expect(next.parentId).toBe(ids[3]!);
    file.sync();
    file.close();
    using reopened = await SessionFile.openOwned(file.path);
    expect(reopened.entries.map((e) => e.id)).toEqual([...ids, next.id]);
    expect(reopened.skippedLines).toBe(0);
    expect(reopened.tornTailSavedTo).toBeUndefined();
    expect(reopened.name).toBe("second");
  });

  test("chosen IDs are kept, references to them survive, generated IDs avoid them", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({
      dir: dir.path,
      cwd: "/proj",
      initialEntries: [
        { type: "turn_start", id: "0000000a" } as never,
        { type: "session_info", name: "n" },
        { type: "turn_end", turnId: "0000000a", outcome: "completed", id: "0000000b" } as never,
      ],
    });
    const [start, info, end] = file.entries;
    expect(start!.id).toBe("0000000a");
    expect(end!.id).toBe("0000000b");
    expect(info!.id).not.toBe("0000000a");
    expect(info!.id).not.toBe("0000000b");
    expect(end!.parentId).toBe(info!.id);
    file.close();
    const read = await SessionFile.openReadOnly(file.path);
    expect(read.entries.map((e) => e.id)).toEqual(file.entries.map((e) => e.id));
  });

  test("a malformed or repeated chosen ID is a RangeError and creates no file and no lock", async () => {
    await using dir = tempDir();
    for (const initialEntries of [
      [{ type: "session_info", name: "x", id: "NOT-HEX!" }],
      [
        { type: "session_info", name: "x", id: "0000000c" },
        { type: "session_info", name: "y", id: "0000000c" },
      ],
    ]) {
      await expect(
        SessionFile.create({ dir: dir.path, cwd: "/proj", initialEntries: initialEntries as never }),
      ).rejects.toBeInstanceOf(RangeError);
    }
    expect(readdirSync(dir.path)).toEqual([]);
  });

  test("header and entries share one file fsync: two fsyncs in all (file and directory)", async () => {
    await using dir = tempDir();
    const withEntries = await countFsyncs(() =>
      SessionFile.create({
        dir: dir.path,
        cwd: "/proj",
        initialEntries: [
          { type: "approval_mode", mode: "ask" },
          { type: "session_info", name: "n" },
        ],
      }),
    );
    withEntries.result.close();
    expect(withEntries.fsyncs).toBe(2);
    // Both ran off the main thread.
    expect(withEntries.onMainThread).toBe(0);
    expect(fileLines(withEntries.result.path)).toHaveLength(3);

    // The old way, create then append then sync, costs a third.
    const appended = await countFsyncs(async () => {
      const file = await SessionFile.create({ dir: dir.path, cwd: "/proj" });
      file.append({ type: "approval_mode", mode: "ask" });
      file.append({ type: "session_info", name: "n" });
      file.sync();
      return file;
    });
    appended.result.close();
    expect(appended.fsyncs).toBe(3);
    expect(appended.onMainThread).toBe(1);
  });

  test("without the option (or with an empty list) create writes the header only, as before", async () => {
    await using dir = tempDir();
    for (const options of [{}, { initialEntries: [] }]) {
      const { result: file, fsyncs } = await countFsyncs(() =>
        SessionFile.create({ dir: dir.path, cwd: "/proj", ...options }),
      );
      expect(fsyncs).toBe(2);
      expect(fileLines(file.path).map((l) => l.type)).toEqual(["session"]);
      expect(file.entries).toEqual([]);
      expect(file.leafId).toBeNull();
      expect(existsSync(lockPathFor(file.realPath))).toBe(true);
      const first = file.append({ type: "session_info", name: "n" });
      expect(first.parentId).toBeNull();
      file.close();
    }
  });

  test("createFork writes the copied branch with the header: IDs, parents and times kept, two fsyncs", async () => {
    await using dir = tempDir();
    using source = await SessionFile.create({ dir: dir.path, cwd: "/proj" });
    const a = source.append({ type: "session_info", name: "a" });
    const b = source.append({ type: "session_info", name: "b" });
    source.setLeaf(a.id);
    source.append({ type: "session_info", name: "other branch" });
    source.sync();
    const { result: fork, fsyncs } = await countFsyncs(() =>
      SessionFile.createFork(source, { dir: join(dir.path, "forks"), leafId: b.id }),
    );
    expect(fsyncs).toBe(2);
    expect(fork.entries).toEqual([a, b]);
    expect(fork.header.forkedFromId).toBe(source.id);
    fork.close();
    const lines = fileLines(fork.path);
    expect(lines.slice(1)).toEqual([{ ...a }, { ...b }]);
  });
});
