import { describe, expect, test } from "bun:test";
import {
  appendFileSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import {
  createListingCounters,
  loadThreadIndex,
  SessionFile,
  scanDirectory,
  THREAD_INDEX_FILE,
} from "../src/index.ts";
import { tempDir } from "./helpers/temp-dir.ts";
import { writeTranscript } from "./helpers/transcripts.ts";

describe("scanDirectory", () => {
  test("a cold scan reads every transcript; a warm scan of an unchanged directory opens none", async () => {
    await using dir = tempDir();
    const files = [];
    for (let i = 0; i < 5; i++) files.push(await writeTranscript(dir.path, { text: `hello ${i}` }));
    const counters = createListingCounters();
    const cold = await scanDirectory(dir.path, false, counters);
    expect(cold).toHaveLength(5);
    expect(counters.filesOpened).toBe(5);
    expect(counters.bytesScanned).toBe(files.reduce((sum, f) => sum + statSync(f.path).size, 0));
    const warm = await scanDirectory(dir.path, false, counters);
    expect(counters.filesOpened).toBe(5);
    expect(counters.bytesScanned).toBe(files.reduce((sum, f) => sum + statSync(f.path).size, 0));
    expect(warm.map((s) => s.id).sort()).toEqual(cold.map((s) => s.id).sort());
  });

  test("only new or changed transcripts (size, mtime, inode) are rescanned; removed ones drop out", async () => {
    await using dir = tempDir();
    const a = await writeTranscript(dir.path, { text: "a" });
    const b = await writeTranscript(dir.path, { text: "b" });
    const counters = createListingCounters();
    await scanDirectory(dir.path, false, counters);
    appendFileSync(
      a.path,
      `${JSON.stringify({ type: "session_info", id: "abcdef01", parentId: null, timestamp: "t", name: "renamed" })}\n`,
    );
    const c = await writeTranscript(dir.path, { text: "c" });
    // Same size and mtime but a new inode: a replaced file must be rescanned.
    const replacement = `${b.path}.new`;
    writeFileSync(replacement, await Bun.file(b.path).bytes());
    const st = statSync(b.path);
    utimesSync(replacement, st.atime, st.mtime);
    renameSync(replacement, b.path);
    const before = counters.filesOpened;
    const summaries = await scanDirectory(dir.path, false, counters);
    expect(counters.filesOpened - before).toBe(3);
    expect(summaries.find((s) => s.id === a.id)?.title).toBe("renamed");
    expect(summaries.find((s) => s.id === c.id)?.title).toBe("c");
    unlinkSync(c.path);
    expect((await scanDirectory(dir.path, false, counters)).map((s) => s.id).sort()).toEqual(
      [a.id, b.id].sort(),
    );
    expect([...loadThreadIndex(dir.path).records.keys()]).toHaveLength(2);
  });

  test("a transcript that only grew is rescanned from its old end, not from the start", async () => {
    await using dir = tempDir();
    const file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    file.append({ type: "message", message: { role: "user", content: "first words", timestamp: 1 } });
    for (let i = 0; i < 50; i++) file.append({ type: "custom", customType: "bulk", data: "z".repeat(1000) });
    const counters = createListingCounters();
    await scanDirectory(dir.path, false, counters);
    const coldBytes = counters.bytesScanned;

    let size = statSync(file.path).size;
    file.append({ type: "session_info", name: "Named later" });
    let listed = await scanDirectory(dir.path, false, counters);
    expect(listed[0]!.title).toBe("Named later");
    expect(counters.bytesScanned - coldBytes).toBe(statSync(file.path).size - size + 1);

    size = statSync(file.path).size;
    file.append({ type: "session_info" });
    listed = await scanDirectory(dir.path, false, counters);
    expect(listed[0]!.name).toBeUndefined();
    expect(listed[0]!.title).toBe("first words");
    file.close();

    // Rewritten in place (same inode) so the old end is no longer a line end: full rescan.
    const text = readFileSync(file.path, "utf8");
    writeFileSync(file.path, text.replace("first words", "first wordsXX"));
    const before = counters.bytesScanned;
    listed = await scanDirectory(dir.path, false, counters);
    // The tail probe (2 grown bytes plus the byte before them) is counted, then the whole file.
    expect(counters.bytesScanned - before).toBe(3 + statSync(file.path).size);
    expect(listed[0]!.title).toBe("first wordsXX");
  });

  test("summaries carry createdAt from the header, updatedAt from the file mtime, and a bounded title", async () => {
    await using dir = tempDir();
    const long = await writeTranscript(dir.path, { text: `x${"y".repeat(5000)}`, mtimeSec: 1_800_000_000 });
    const named = await writeTranscript(dir.path, { text: "first", name: "My name" });
    const summaries = await scanDirectory(dir.path, false, createListingCounters());
    const l = summaries.find((s) => s.id === long.id)!;
    expect(l.title!.length).toBeLessThanOrEqual(200);
    expect(l.updatedAt).toBe(new Date(1_800_000_000_000).toISOString());
    expect(l.createdAt).toBe(long.header.timestamp);
    expect(summaries.find((s) => s.id === named.id)!.title).toBe("My name");
    const index = readFileSync(join(dir.path, THREAD_INDEX_FILE), "utf8");
    expect(index.length).toBeLessThan(2000);
  });

  test("forkedFromId is resolved once from the parent's header and cached; warm listings open no parent", async () => {
    await using dir = tempDir();
    const parent = await writeTranscript(dir.path, { text: "parent" });
    const child = await writeTranscript(dir.path, { text: "child", parentSession: parent.path });
    const counters = createListingCounters();
    const cold = await scanDirectory(dir.path, false, counters);
    expect(cold.find((s) => s.id === child.id)?.forkedFromId).toBe(parent.id);
    expect(counters.filesOpened).toBe(3);
    expect(counters.bytesScanned).toBe(statSync(parent.path).size + statSync(child.path).size);
    const warm = await scanDirectory(dir.path, false, counters);
    expect(counters.filesOpened).toBe(3);
    expect(warm.find((s) => s.id === child.id)?.forkedFromId).toBe(parent.id);
  });

  test("a .jsonl file that is not a transcript is skipped, counted, and not reopened when warm", async () => {
    await using dir = tempDir();
    await writeTranscript(dir.path);
    writeFileSync(join(dir.path, "notes.jsonl"), '{"hello":1}\n');
    const counters = createListingCounters();
    expect(await scanDirectory(dir.path, false, counters)).toHaveLength(1);
    expect(counters.invalidFiles).toBe(1);
    await scanDirectory(dir.path, false, counters);
    expect(counters.filesOpened).toBe(2);
  });

  test("the index is written atomically (no temp files left) and a missing directory lists nothing", async () => {
    await using dir = tempDir();
    await writeTranscript(dir.path);
    await scanDirectory(dir.path, false, createListingCounters());
    expect(readdirSync(dir.path).filter((n) => n.includes(".tmp"))).toEqual([]);
    expect(readdirSync(dir.path)).toContain(THREAD_INDEX_FILE);
    expect(await scanDirectory(join(dir.path, "nope"), false, createListingCounters())).toEqual([]);
  });
});
