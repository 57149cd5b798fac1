/**
 * `SessionFile.createSyncing` and the durability contract of `create`: the new file's
 * fsyncs run off the main thread on descriptors of their own; `create` answers only
 * after both (file and directory), and a failed fsync fails it with the lock released;
 * `ensureDurable` makes the file durable without an await.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  type HeldFsyncs,
  holdFsyncs,
  ioError,
  type MainThreadFsync,
  recordMainThreadFsyncs,
  settle,
  settledYet,
} from "@knightcode/testkit/held-fsyncs";
import { lockPathFor, SessionFile } from "../src/index.ts";
import { tempDir } from "./helpers/temp-dir.ts";

let held: HeldFsyncs | undefined;
afterEach(() => {
  held?.[Symbol.dispose]();
  held = undefined;
});

const settings = [
  { type: "approval_mode" as const, mode: "ask" as const },
  { type: "session_info" as const, name: "n" },
];

describe("SessionFile.createSyncing", () => {
  test("the file is whole, owned and locked at once; durable settles only when both fsyncs are done", async () => {
    await using dir = tempDir();
    held = holdFsyncs();
    const { session, durable } = SessionFile.createSyncing({
      dir: dir.path,
      cwd: "/proj",
      initialEntries: settings,
    });
    // Content, lock and a reader's view do not wait for the disk.
    const lines = readFileSync(session.path, "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(["session", "approval_mode", "session_info"]);
    expect(session.owned).toBe(true);
    expect(existsSync(lockPathFor(session.realPath))).toBe(true);
    expect((await SessionFile.openReadOnly(session.path)).name).toBe("n");
    await expect(SessionFile.openOwned(session.path)).rejects.toMatchObject({
      code: "threadLockedElsewhere",
    });

    // One fsync for the file and one for its directory, each on a descriptor of its own.
    expect(held.calls.map((c) => c.isDirectory)).toEqual([false, true]);
    const [file, directory] = held.calls;
    expect(file!.ino).toBe(statSync(session.realPath).ino);
    expect(directory!.ino).toBe(statSync(dir.path).ino);

    expect(await settledYet(durable)).toBe(false);
    file!.release();
    expect(await settledYet(durable)).toBe(false);
    directory!.release();
    await durable;
    // The task closed its descriptors; the writer stays open for appends.
    expect(() => fstatSync(file!.fd)).toThrow();
    expect(() => fstatSync(directory!.fd)).toThrow();
    session.append({ type: "session_info", name: "later" });
    session.close();
  });

  test("closing the session while its fsyncs run is safe: they finish on their own descriptors", async () => {
    await using dir = tempDir();
    held = holdFsyncs();
    const { session, durable } = SessionFile.createSyncing({
      dir: dir.path,
      cwd: "/proj",
      initialEntries: settings,
    });
    session.close();
    expect(session.owned).toBe(false);
    expect(existsSync(lockPathFor(session.realPath))).toBe(false);
    // The writer's fd number is free now; another file takes it before the fsyncs run.
    const other = openSync(join(dir.path, "other"), "w");
    try {
      expect(fstatSync(held.calls[0]!.fd).ino).toBe(statSync(session.realPath).ino);
      held.releaseAll();
      await durable;
      expect(fstatSync(other).ino).toBe(statSync(join(dir.path, "other")).ino);
    } finally {
      closeSync(other);
    }
    // Another owner can take the file, which holds everything written.
    using reopened = await SessionFile.openOwned(session.path);
    expect(reopened.entries.map((e) => e.type)).toEqual(["approval_mode", "session_info"]);
  });

  test("a failed file fsync rejects durable with its error; the caller still owns the file until it closes it", async () => {
    await using dir = tempDir();
    held = holdFsyncs();
    const { session, durable } = SessionFile.createSyncing({ dir: dir.path, cwd: "/proj" });
    held.calls[0]!.release(ioError());
    held.calls[1]!.release();
    await expect(durable).rejects.toMatchObject({ code: "EIO" });
    expect(() => fstatSync(held!.calls[0]!.fd)).toThrow();
    expect(session.owned).toBe(true);
    session.close();
    expect(existsSync(lockPathFor(session.realPath))).toBe(false);
  });

  test("a rejection nobody awaits is not reported as unhandled", async () => {
    await using dir = tempDir();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      held = holdFsyncs();
      const { session } = SessionFile.createSyncing({ dir: dir.path, cwd: "/proj" });
      session.close();
      held.calls[0]!.release(ioError());
      held.calls[1]!.release();
      await settle();
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  test("a bad entry ID throws before anything touches the disk: no file, no lock, no fsync", async () => {
    await using dir = tempDir();
    held = holdFsyncs();
    expect(() =>
      SessionFile.createSyncing({
        dir: dir.path,
        cwd: "/proj",
        initialEntries: [{ type: "session_info", name: "x", id: "NOT-HEX!" } as never],
      }),
    ).toThrow(RangeError);
    expect(readdirSync(dir.path)).toEqual([]);
    expect(held.calls).toEqual([]);
  });
});

describe("SyncingSession.ensureDurable", () => {
  test("before the pool has reported: fsyncs the writer and the directory on the main thread", async () => {
    await using dir = tempDir();
    held = holdFsyncs();
    const created = SessionFile.createSyncing({ dir: dir.path, cwd: "/proj", initialEntries: settings });
    using main = recordMainThreadFsyncs();
    created.ensureDurable();
    expect(main.calls).toEqual([
      { isDirectory: false, ino: statSync(created.session.realPath).ino },
      { isDirectory: true, ino: statSync(dir.path).ino },
    ]);
    // The pool's fsyncs are still held; they finish (and close their descriptors) on their own.
    expect(await settledYet(created.durable)).toBe(false);
    held.releaseAll();
    await created.durable;
    created.session.close();
  });

  test("once the pool has reported success: nothing more to do", async () => {
    await using dir = tempDir();
    const created = SessionFile.createSyncing({ dir: dir.path, cwd: "/proj" });
    await created.durable;
    using main = recordMainThreadFsyncs();
    created.ensureDurable();
    expect(main.calls).toEqual([]);
    created.session.close();
  });

  test("once the pool has reported a failure: throws it, without another fsync", async () => {
    await using dir = tempDir();
    held = holdFsyncs();
    const created = SessionFile.createSyncing({ dir: dir.path, cwd: "/proj" });
    held.calls[0]!.release(ioError());
    held.calls[1]!.release();
    await expect(created.durable).rejects.toMatchObject({ code: "EIO" });
    using main = recordMainThreadFsyncs();
    expect(() => created.ensureDurable()).toThrow(expect.objectContaining({ code: "EIO" }));
    expect(main.calls).toEqual([]);
    created.session.close();
  });

  test("a failed fsync of the writer throws; a directory that refuses fsync does not", async () => {
    await using dir = tempDir();
    held = holdFsyncs();
    const failing = (kind: "file" | "directory") => (call: MainThreadFsync) =>
      call.isDirectory === (kind === "directory") ? ioError() : undefined;
    const first = SessionFile.createSyncing({ dir: dir.path, cwd: "/proj" });
    {
      using _ = recordMainThreadFsyncs({ fail: failing("file") });
      expect(() => first.ensureDurable()).toThrow(expect.objectContaining({ code: "EIO" }));
    }
    first.session.close();
    const second = SessionFile.createSyncing({ dir: dir.path, cwd: "/proj" });
    {
      using main = recordMainThreadFsyncs({ fail: failing("directory") });
      second.ensureDurable();
      expect(main.calls.map((c) => c.isDirectory)).toEqual([false, true]);
    }
    second.session.close();
  });
});

describe("SessionFile.create waits for the disk", () => {
  test("it answers only after the file and directory fsyncs", async () => {
    await using dir = tempDir();
    held = holdFsyncs();
    const created = SessionFile.create({ dir: dir.path, cwd: "/proj", initialEntries: settings });
    expect(held.calls).toHaveLength(2);
    expect(await settledYet(created)).toBe(false);
    held.calls[0]!.release();
    expect(await settledYet(created)).toBe(false);
    held.calls[1]!.release();
    using file = await created;
    expect(file.owned).toBe(true);
    expect(file.name).toBe("n");
  });

  test("a failed file fsync rejects with its error, closes the file and releases the lock", async () => {
    await using dir = tempDir();
    held = holdFsyncs();
    const created = SessionFile.create({ dir: dir.path, cwd: "/proj" });
    held.calls[0]!.release(ioError());
    held.calls[1]!.release();
    await expect(created).rejects.toMatchObject({ code: "EIO" });
    // As before the fsyncs moved: the file stays (with its header), unowned.
    const [name] = readdirSync(dir.path);
    expect(name).toMatch(/\.jsonl$/);
    using reopened = await SessionFile.openOwned(join(dir.path, name!));
    expect(reopened.entries).toEqual([]);
  });

  test("a directory that refuses fsync does not fail it (best effort, as for every directory fsync)", async () => {
    await using dir = tempDir();
    held = holdFsyncs();
    const created = SessionFile.create({ dir: dir.path, cwd: "/proj" });
    held.calls[0]!.release();
    held.calls[1]!.release(Object.assign(new Error("EINVAL"), { code: "EINVAL" }));
    using file = await created;
    expect(file.owned).toBe(true);
  });
});
