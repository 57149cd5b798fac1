import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  archiveSession,
  InvalidCursorError,
  LIST_SNAPSHOT_TTL_MS,
  MAX_LIST_SNAPSHOTS,
  projectSessionDirs,
  type SessionStoreError,
  ThreadLister,
  unarchiveSession,
} from "../src/index.ts";
import { tempDir } from "./helpers/temp-dir.ts";
import { writeTranscript } from "./helpers/transcripts.ts";

async function failure(promise: Promise<unknown>): Promise<SessionStoreError> {
  try {
    await promise;
  } catch (error) {
    return error as SessionStoreError;
  }
  throw new Error("expected an error");
}

describe("ThreadLister", () => {
  test("lists newest first across directories, one directory at a time, filtered by cwd and archived state", async () => {
    await using root = tempDir();
    const d1 = join(root.path, "--a--");
    const d2 = join(root.path, "--b--");
    const old = await writeTranscript(d1, { cwd: "/a", mtimeSec: 1_700_000_000 });
    const mid = await writeTranscript(d2, { cwd: "/b", mtimeSec: 1_700_000_100 });
    const recent = await writeTranscript(d1, { cwd: "/a", mtimeSec: 1_700_000_200 });
    const gone = await writeTranscript(d2, { cwd: "/b", mtimeSec: 1_700_000_300 });
    archiveSession(gone.path);
    mkdirSync(join(root.path, "not-a-project"));
    const dirs = projectSessionDirs(root.path);
    expect(dirs).toEqual([d1, d2]);
    const lister = new ThreadLister();
    expect((await lister.list({ dirs })).threads.map((t) => t.id)).toEqual([recent.id, mid.id, old.id]);
    expect((await lister.list({ dirs, cwd: "/a" })).threads.map((t) => t.id)).toEqual([recent.id, old.id]);
    const archived = await lister.list({ dirs, archived: true });
    expect(archived.threads.map((t) => [t.id, t.archived])).toEqual([[gone.id, true]]);
    expect((await lister.require(dirs, gone.id)).archived).toBe(true);
    expect((await failure(lister.require(dirs, "missing"))).code).toBe("threadNotFound");
    // A moved transcript is found again at its new place.
    const restored = unarchiveSession((await lister.require(dirs, gone.id)).path);
    expect((await lister.require(dirs, gone.id)).path).toBe(restored);
  });

  test("continuations page an immutable snapshot without rescanning", async () => {
    await using dir = tempDir();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.unshift((await writeTranscript(dir.path, { mtimeSec: 1_700_000_000 + i })).id);
    const lister = new ThreadLister();
    const first = await lister.list({ dirs: [dir.path], limit: 3 });
    expect(first.threads.map((t) => t.id)).toEqual(ids.slice(0, 3));
    const opened = lister.counters.filesOpened;
    await writeTranscript(dir.path, { mtimeSec: 1_800_000_000 });
    const second = await lister.list({ dirs: [dir.path], limit: 3, cursor: first.nextCursor! });
    const third = await lister.list({ dirs: [dir.path], limit: 3, cursor: second.nextCursor! });
    expect([...second.threads, ...third.threads].map((t) => t.id)).toEqual(ids.slice(3));
    expect(third.nextCursor).toBeUndefined();
    expect(lister.counters.filesOpened).toBe(opened);
  });

  test("a cursor expires after five minutes without use; each use slides the expiry", async () => {
    await using dir = tempDir();
    for (let i = 0; i < 5; i++) await writeTranscript(dir.path, { mtimeSec: 1_700_000_000 + i });
    let now = 1_000_000;
    const lister = new ThreadLister({ now: () => now });
    const first = await lister.list({ dirs: [dir.path], limit: 1 });
    now += LIST_SNAPSHOT_TTL_MS - 1;
    const second = await lister.list({ dirs: [dir.path], limit: 1, cursor: first.nextCursor! });
    now += LIST_SNAPSHOT_TTL_MS - 1;
    const third = await lister.list({ dirs: [dir.path], limit: 1, cursor: second.nextCursor! });
    now += LIST_SNAPSHOT_TTL_MS;
    const expired = await failure(lister.list({ dirs: [dir.path], limit: 1, cursor: third.nextCursor! }));
    expect(expired).toBeInstanceOf(InvalidCursorError);
    expect(expired.code).toBe("invalidCursor");
  });

  test("at most 32 snapshots are kept; the least recently used is evicted and its cursor is invalidCursor", async () => {
    await using dir = tempDir();
    for (let i = 0; i < 3; i++) await writeTranscript(dir.path, { mtimeSec: 1_700_000_000 + i });
    let now = 0;
    const lister = new ThreadLister({ now: () => now });
    const cursors: string[] = [];
    for (let i = 0; i <= MAX_LIST_SNAPSHOTS; i++) {
      now++;
      cursors.push((await lister.list({ dirs: [dir.path], limit: 1 })).nextCursor!);
    }
    expect(lister.snapshotCount).toBe(MAX_LIST_SNAPSHOTS);
    expect((await failure(lister.list({ dirs: [dir.path], limit: 1, cursor: cursors[0]! }))).code).toBe(
      "invalidCursor",
    );
    expect((await lister.list({ dirs: [dir.path], limit: 1, cursor: cursors[1]! })).threads).toHaveLength(1);
  });

  test("a cursor used with other filters, or malformed, is invalidCursor", async () => {
    await using dir = tempDir();
    for (let i = 0; i < 3; i++) await writeTranscript(dir.path, { cwd: "/p", mtimeSec: 1_700_000_000 + i });
    const lister = new ThreadLister();
    const { nextCursor } = await lister.list({ dirs: [dir.path], limit: 1 });
    for (const query of [{ cwd: "/p" }, { archived: true }]) {
      expect((await failure(lister.list({ dirs: [dir.path], cursor: nextCursor!, ...query }))).code).toBe(
        "invalidCursor",
      );
    }
    for (const cursor of ["", "l1.x.1", "garbage", `l1.${crypto.randomUUID()}.1`]) {
      expect((await failure(lister.list({ dirs: [dir.path], cursor }))).code).toBe("invalidCursor");
    }
  });

  test("a page stays within its byte budget (at least one thread) and continues after it", async () => {
    await using dir = tempDir();
    for (let i = 0; i < 10; i++) await writeTranscript(dir.path, { mtimeSec: 1_700_000_000 + i });
    const lister = new ThreadLister();
    const page = await lister.list({ dirs: [dir.path], limit: 50, maxBytes: 350, measure: () => 100 });
    expect(page.threads).toHaveLength(3);
    const rest = await lister.list({ dirs: [dir.path], limit: 50, cursor: page.nextCursor! });
    expect(rest.threads).toHaveLength(7);
    const defaultBudget = await lister.list({ dirs: [dir.path] });
    expect(Buffer.byteLength(JSON.stringify(defaultBudget))).toBeLessThan(1024 * 1024);
  });
});
