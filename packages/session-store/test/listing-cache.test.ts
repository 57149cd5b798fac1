import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import {
  loadThreadIndex,
  MAX_UNSAVED_GROWTH_BYTES,
  SessionFile,
  THREAD_INDEX_FILE,
  ThreadLister,
} from "../src/index.ts";
import { tempDir } from "./helpers/temp-dir.ts";
import { writeTranscript } from "./helpers/transcripts.ts";

describe("a long-lived lister's cache", () => {
  test("an active transcript's growth is kept in memory and written to the index only past 1 MiB", async () => {
    await using dir = tempDir();
    await writeTranscript(dir.path, { text: "other" });
    const active = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    active.append({ type: "message", message: { role: "user", content: "first words", timestamp: 1 } });
    const lister = new ThreadLister();
    await lister.list({ dirs: [dir.path] });
    const indexPath = join(dir.path, THREAD_INDEX_FILE);
    const written = readFileSync(indexPath, "utf8");

    const before = statSync(active.path).size;
    active.append({ type: "session_info", name: "Renamed" });
    const grown = statSync(active.path).size - before;
    let opened = lister.counters.filesOpened;
    let page = await lister.list({ dirs: [dir.path] });
    expect(page.threads.find((t) => t.id === active.id)?.title).toBe("Renamed");
    expect(lister.counters.filesOpened - opened).toBe(1);
    expect(readFileSync(indexPath, "utf8")).toBe(written);
    // The newer record stays in memory: the next listing opens nothing.
    opened = lister.counters.filesOpened;
    await lister.list({ dirs: [dir.path] });
    expect(lister.counters.filesOpened).toBe(opened);

    // Another process (a fresh lister) reads only the growth since the index was written.
    const fresh = new ThreadLister();
    page = await fresh.list({ dirs: [dir.path] });
    expect(page.threads.find((t) => t.id === active.id)?.title).toBe("Renamed");
    expect(fresh.counters.filesOpened).toBe(1);
    expect(fresh.counters.bytesScanned).toBe(grown + 1);

    // Past the limit the index is written, with the transcript's current size.
    active.append({ type: "custom", customType: "bulk", data: "z".repeat(MAX_UNSAVED_GROWTH_BYTES) });
    await lister.list({ dirs: [dir.path] });
    expect(readFileSync(indexPath, "utf8")).not.toBe(written);
    const record = [...loadThreadIndex(dir.path).records.values()].find((r) => r.id === active.id);
    expect(record?.size).toBe(statSync(active.path).size);
    expect(record?.title).toBe("Renamed");
    active.close();
  });

  test("a warm listing reuses its sort only while nothing changed", async () => {
    await using dir = tempDir();
    const a = await writeTranscript(dir.path, { mtimeSec: 1_700_000_000 });
    const b = await writeTranscript(dir.path, { mtimeSec: 1_700_000_100 });
    const lister = new ThreadLister();
    expect((await lister.list({ dirs: [dir.path] })).threads.map((t) => t.id)).toEqual([b.id, a.id]);
    expect((await lister.list({ dirs: [dir.path] })).threads.map((t) => t.id)).toEqual([b.id, a.id]);
    utimesSync(a.path, 1_700_000_200, 1_700_000_200);
    const page = await lister.list({ dirs: [dir.path] });
    expect(page.threads.map((t) => t.id)).toEqual([a.id, b.id]);
    expect(page.threads[0]!.updatedAt).toBe(new Date(1_700_000_200_000).toISOString());

    // Threads added, removed and touched at once land where a fresh listing puts them.
    const more = [];
    for (let i = 0; i < 6; i++)
      more.push(await writeTranscript(dir.path, { mtimeSec: 1_700_000_050 + i * 30 }));
    rmSync(b.path);
    utimesSync(a.path, 1_700_000_090, 1_700_000_090);
    const expected = (await new ThreadLister().list({ dirs: [dir.path] })).threads.map((t) => t.id);
    expect(expected).toHaveLength(7);
    expect((await lister.list({ dirs: [dir.path] })).threads.map((t) => t.id)).toEqual(expected);
  });

  test("a listing that changes does not alter the snapshot an earlier cursor continues", async () => {
    await using dir = tempDir();
    const files = [];
    for (let i = 0; i < 3; i++) files.push(await writeTranscript(dir.path, { mtimeSec: 1_700_000_000 + i }));
    const lister = new ThreadLister();
    const first = await lister.list({ dirs: [dir.path], limit: 1 });
    expect(first.threads.map((t) => t.id)).toEqual([files[2]!.id]);
    const added = await writeTranscript(dir.path, { mtimeSec: 1_700_000_001 });
    rmSync(files[0]!.path);
    const fresh = await lister.list({ dirs: [dir.path] });
    expect(fresh.threads.map((t) => t.id)).toContain(added.id);
    const rest = await lister.list({ dirs: [dir.path], limit: 5, cursor: first.nextCursor! });
    expect(rest.threads.map((t) => t.id)).toEqual([files[1]!.id, files[0]!.id]);
  });

  test("a directory whose index cannot be written is still listed warm without opening transcripts", async () => {
    await using dir = tempDir();
    await writeTranscript(dir.path);
    // A directory in the index's place makes every index write fail, even for root.
    mkdirSync(join(dir.path, THREAD_INDEX_FILE));
    const lister = new ThreadLister();
    await lister.list({ dirs: [dir.path] });
    expect(lister.counters.indexWriteFailures).toBe(1);
    const opened = lister.counters.filesOpened;
    expect((await lister.list({ dirs: [dir.path] })).threads).toHaveLength(1);
    expect(lister.counters.filesOpened).toBe(opened);
  });
});
