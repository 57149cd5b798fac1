import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createListingCounters,
  loadThreadIndex,
  MAX_INDEX_BYTES,
  MAX_TITLE_CHARS,
  saveThreadIndex,
  scanDirectory,
  THREAD_INDEX_FILE,
} from "../src/index.ts";
import { tempDir } from "./helpers/temp-dir.ts";
import { writeTranscript } from "./helpers/transcripts.ts";

/** Rewrites every record of an index file (same size, mtime and inode fields, so only validation can catch it). */
function editRecords(path: string, edit: (record: Record<string, unknown>) => Record<string, unknown>): void {
  const doc = JSON.parse(readFileSync(path, "utf8")) as { files: Record<string, Record<string, unknown>> };
  for (const name of Object.keys(doc.files)) doc.files[name] = edit(doc.files[name]!);
  writeFileSync(path, JSON.stringify(doc));
}

describe("thread index", () => {
  const broken: [string, (path: string) => void, string][] = [
    ["a corrupt index", (p) => writeFileSync(p, "{not json"), "corrupt"],
    [
      "an invalid index",
      (p) => writeFileSync(p, JSON.stringify({ version: 1, files: { "a.jsonl": { size: "x" } } })),
      "invalid",
    ],
    [
      "an index of another version",
      (p) => writeFileSync(p, JSON.stringify({ version: 99, files: {} })),
      "invalid",
    ],
    [
      "an index whose record has a non-string thread ID",
      (p) => editRecords(p, (r) => ({ ...r, id: 7 })),
      "invalid",
    ],
    [
      "an index whose transcript record has no thread ID",
      (p) => editRecords(p, ({ id: _id, ...r }) => r),
      "invalid",
    ],
    [
      "an index with an unbounded title",
      (p) => editRecords(p, (r) => ({ ...r, title: "t".repeat(MAX_TITLE_CHARS + 1) })),
      "invalid",
    ],
    [
      "an oversized index",
      (p) => {
        writeFileSync(p, "");
        truncateSync(p, MAX_INDEX_BYTES + 1);
      },
      "oversized",
    ],
  ];
  for (const [label, damage, reason] of broken) {
    test(`${label} is rebuilt from the transcripts`, async () => {
      await using dir = tempDir();
      const file = await writeTranscript(dir.path, { text: "kept" });
      const counters = createListingCounters();
      await scanDirectory(dir.path, false, counters);
      damage(join(dir.path, THREAD_INDEX_FILE));
      expect(loadThreadIndex(dir.path).rebuildReason).toBe(reason as never);
      const summaries = await scanDirectory(dir.path, false, counters);
      expect(summaries.map((s) => [s.id, s.title])).toEqual([[file.id, "kept"]]);
      expect(counters.indexRebuilds).toBe(1);
      expect(counters.filesOpened).toBe(2);
      expect(loadThreadIndex(dir.path).rebuildReason).toBeUndefined();
    });
  }

  test("a missing index is built on the first listing", async () => {
    await using dir = tempDir();
    await writeTranscript(dir.path);
    expect(loadThreadIndex(dir.path).rebuildReason).toBe("missing");
    await scanDirectory(dir.path, false, createListingCounters());
    expect(loadThreadIndex(dir.path).records.size).toBe(1);
  });

  test("index writes are best effort: a failed write is counted and the listing still answers", async () => {
    await using dir = tempDir();
    const file = await writeTranscript(dir.path);
    mkdirSync(join(dir.path, THREAD_INDEX_FILE));
    const counters = createListingCounters();
    const summaries = await scanDirectory(dir.path, false, counters);
    expect(summaries.map((s) => s.id)).toEqual([file.id]);
    expect(counters.indexWriteFailures).toBe(1);
    expect(readdirSync(dir.path).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    expect(saveThreadIndex(dir.path, new Map())).toBe(false);
  });
});
