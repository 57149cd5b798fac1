import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { type FileHandle, open, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { MAX_OPEN_TRANSCRIPTS, type ScanIo, ThreadLister } from "../src/index.ts";
import { tempDir } from "./helpers/temp-dir.ts";

/** A transcript written directly (no fsync per file): a header and one user message. */
function transcript(dir: string, n: number, parentSession?: string): string {
  const id = `0190a0a0-0000-7000-8000-${n.toString().padStart(12, "0")}`;
  const header = {
    type: "session",
    version: 3,
    id,
    timestamp: "2026-11-30T00:00:00.000Z",
    cwd: "/p",
    parentSession,
  };
  const user = {
    type: "message",
    id: "00000001",
    parentId: null,
    timestamp: "2026-11-30T00:00:01.000Z",
    message: { role: "user", content: `hello ${n}`, timestamp: 1 },
  };
  const path = join(dir, `2026-11-30T00-00-00-000Z_${id}.jsonl`);
  writeFileSync(path, `${JSON.stringify(header)}\n${JSON.stringify(user)}\n`);
  return path;
}

/** Opens through the real filesystem while counting open files, in total and per directory. */
function countingIo() {
  const state = { open: 0, peak: 0, opened: 0, byDir: new Map<string, number>(), overlaps: [] as string[] };
  /** Counts one more open file in `path`'s directory; returns the matching close. */
  const opening = (path: string) => {
    const dir = dirname(path);
    for (const [other, n] of state.byDir) {
      if (other !== dir && n > 0) state.overlaps.push(`${path} opened while ${n} open in ${other}`);
    }
    state.open++;
    state.opened++;
    state.peak = Math.max(state.peak, state.open);
    state.byDir.set(dir, (state.byDir.get(dir) ?? 0) + 1);
    return () => {
      state.open--;
      state.byDir.set(dir, state.byDir.get(dir)! - 1);
    };
  };
  const io: ScanIo = {
    async readFile(path: string): Promise<Buffer> {
      const done = opening(path);
      try {
        return await readFile(path);
      } finally {
        done();
      }
    },
    async open(path: string): Promise<FileHandle> {
      const done = opening(path);
      let handle: FileHandle;
      try {
        handle = await open(path, "r");
      } catch (error) {
        done();
        throw error;
      }
      const close = handle.close.bind(handle);
      let closed = false;
      handle.close = async () => {
        if (!closed) done();
        closed = true;
        await close();
      };
      return handle;
    },
  };
  return { io, state };
}

describe("open transcripts during a listing", () => {
  test("directories are scanned one after another, with at most 64 transcripts open at once", async () => {
    await using root = tempDir();
    const a = join(root.path, "a");
    const b = join(root.path, "b");
    mkdirSync(a);
    mkdirSync(b);
    const parent = transcript(a, 0);
    for (let i = 1; i < 150; i++) transcript(a, i);
    for (let i = 150; i < 249; i++) transcript(b, i);
    // A fork in b whose parent is in a: the parent header lookup is an open too.
    transcript(b, 249, parent);
    const { io, state } = countingIo();
    const lister = new ThreadLister({ io });
    const page = await lister.list({ dirs: [a, b], limit: 1000 });
    expect(page.threads).toHaveLength(250);
    const parentId = "0190a0a0-0000-7000-8000-000000000000";
    expect(page.threads.find((s) => s.parentSession === parent)?.forkedFromId).toBe(parentId);
    // The bound is reached (150 new transcripts in one directory) and never exceeded.
    expect(state.peak).toBe(MAX_OPEN_TRANSCRIPTS);
    expect(state.overlaps).toEqual([]);
    expect(state.open).toBe(0);
    // Every file the scan read went through `io`: nothing bypasses the bound.
    expect(state.opened).toBe(lister.counters.filesOpened);
    expect(state.opened).toBe(251);

    // Warm: nothing is opened at all.
    await lister.list({ dirs: [a, b] });
    expect(state.opened).toBe(251);
  });
});
