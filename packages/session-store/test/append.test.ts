import { describe, expect, spyOn, test } from "bun:test";
import { closeSync, openSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CompactionEntry, type NewEntry, SessionFile } from "../src/index.ts";
import { writeLine } from "../src/session-file-io.ts";
import { tempDir } from "./helpers/temp-dir.ts";

const PAST_LIMIT = join(import.meta.dir, "helpers/append-past-limit.ts");

function compaction(firstKeptEntryId: string): NewEntry {
  return { type: "compaction", summary: "s", firstKeptEntryId, tokensBefore: 1 };
}

describe("append with a chosen entry ID", () => {
  test("reserveEntryId gives a fresh ID that append(entry, {id}) writes, so an entry can name itself", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const first = file.append({ type: "custom", customType: "a" });
    const id = file.reserveEntryId();
    expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(file.getEntry(id)).toBeUndefined();
    // Two reservations never collide, and neither appears in the file until appended.
    const other = file.reserveEntryId();
    expect(other).not.toBe(id);
    const entry = file.append(compaction(id), { id }) as CompactionEntry;
    expect(entry).toMatchObject({ id, parentId: first.id, firstKeptEntryId: id });
    expect(file.leafId).toBe(id);
    const reread = await SessionFile.openReadOnly(file.path);
    expect(reread.getEntry(id)).toEqual(entry);
    expect(reread.context().messages.map((m) => m.role)).toEqual(["compactionSummary"]);
  });

  test("an ID that is not 8 lowercase hex chars, or is already used, is refused and nothing is written", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const first = file.append({ type: "custom", customType: "a" });
    const size = statSync(file.path).size;
    for (const bad of ["abc", "ABCDEF01", "abcdef012", "abcdefgh", "", first.id]) {
      expect(() => file.append({ type: "custom", customType: "b" }, { id: bad })).toThrow(RangeError);
    }
    expect(statSync(file.path).size).toBe(size);
    expect(file.entries).toHaveLength(1);
    expect(file.leafId).toBe(first.id);
  });

  test("the older form, an id inside the entry, still works and is validated the same way", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const id = file.reserveEntryId();
    const entry = file.append({ ...compaction(id), id } as unknown as NewEntry);
    expect(entry.id).toBe(id);
    expect((entry as CompactionEntry).firstKeptEntryId).toBe(id);
    expect(() => file.append({ type: "custom", customType: "dup", id } as unknown as NewEntry)).toThrow(
      RangeError,
    );
    expect(() => file.append({ type: "custom", customType: "bad", id: 42 } as unknown as NewEntry)).toThrow(
      RangeError,
    );
    const other = file.reserveEntryId();
    expect(() =>
      file.append({ type: "custom", customType: "both", id: other } as unknown as NewEntry, {
        id: "0badf00d",
      }),
    ).toThrow(RangeError);
    expect((await SessionFile.openReadOnly(file.path)).entries.map((e) => e.id)).toEqual([id]);
  });

  test("generated IDs skip reserved ones", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    // The generator draws 0000000a, then 0000000a again, then 0000000b.
    const draws = [10, 10, 11];
    const spy = spyOn(crypto, "getRandomValues").mockImplementation(
      <T extends ArrayBufferView | null>(array: T) => {
        new DataView((array as Uint8Array).buffer).setUint32(0, draws.shift() ?? 12);
        return array;
      },
    );
    try {
      expect(file.reserveEntryId()).toBe("0000000a");
      expect(file.append({ type: "custom", customType: "x" }).id).toBe("0000000b");
      expect(file.append({ type: "custom", customType: "y" }, { id: "0000000a" }).id).toBe("0000000a");
    } finally {
      spy.mockRestore();
    }
  });
});

/** Text of a huge entry: over the one-write size, with escapes, non-ASCII and a surrogate pair. */
const HUGE_TEXT = `${"x".repeat(1_500_000)}"\\\n é 😀 ${"y".repeat(700_000)}`;

describe("a huge line (a long reply)", () => {
  test("is written in pieces that make exactly its JSON line, and reads back whole", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const small = file.append({ type: "custom", customType: "small", data: 1 });
    const huge = file.append({ type: "custom", customType: "huge", data: HUGE_TEXT });
    const after = file.append({ type: "custom", customType: "small", data: 2 });
    const lines = readFileSync(file.path, "utf8").split("\n");
    expect(lines.slice(1)).toEqual([small, huge, after].map((e) => JSON.stringify(e)).concat([""]));
    const reread = await SessionFile.openReadOnly(file.path);
    expect(reread.skippedLines).toBe(0);
    expect(reread.entries).toEqual([small, huge, after]);
    expect(reread.getEntry(after.id)!.parentId).toBe(huge.id);
  });

  test("after a torn tail it starts on a fresh line", async () => {
    await using dir = tempDir();
    const path = join(dir.path, "line.jsonl");
    writeFileSync(path, '{"torn":');
    const fd = openSync(path, "a");
    const value = { text: HUGE_TEXT };
    const bytes = writeLine(fd, value, true);
    closeSync(fd);
    const expected = `{"torn":\n${JSON.stringify(value)}\n`;
    expect(readFileSync(path, "utf8")).toBe(expected);
    expect(bytes).toBe(Buffer.byteLength(expected) - '{"torn":'.length);
  });
});

describe("a write that fails part way", () => {
  test("is cut back: no partial line stays, the next append lands whole, every returned append is on disk", async () => {
    await using dir = tempDir();
    const created = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    created.close();
    // 8 blocks of 512 bytes: the header and two small entries fit, the big one does not.
    const child = Bun.spawn(
      ["sh", "-c", `trap '' XFSZ; ulimit -f 8; exec bun "$0" "$1" 6000`, PAST_LIMIT, created.path],
      { stdout: "pipe", stderr: "inherit" },
    );
    const output = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    expect(output.trim().split("\n")).toEqual(["small ok", "big failed EFBIG", "after ok"]);
    const text = readFileSync(created.path, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(text).not.toContain('"customType":"big"');
    const reread = await SessionFile.openReadOnly(created.path);
    expect(reread.skippedLines).toBe(0);
    expect(reread.entries.map((e) => (e.type === "custom" ? e.data : undefined))).toEqual([1, 2]);
    expect(reread.entries[1]!.parentId).toBe(reread.entries[0]!.id);
  });

  test("a huge line written in several writes is cut back whole when one of them fails", async () => {
    await using dir = tempDir();
    const created = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    created.close();
    // 2 MiB: the small entries fit, the 3 MiB line stops part way through its writes
    const child = Bun.spawn(
      ["sh", "-c", `trap '' XFSZ; ulimit -f 4096; exec bun "$0" "$1" 3000000`, PAST_LIMIT, created.path],
      { stdout: "pipe", stderr: "inherit" },
    );
    const output = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    expect(output.trim().split("\n")).toEqual(["small ok", "big failed EFBIG", "after ok"]);
    const text = readFileSync(created.path, "utf8");
    expect(text).not.toContain('"customType":"big"');
    const reread = await SessionFile.openReadOnly(created.path);
    expect(reread.skippedLines).toBe(0);
    expect(reread.entries.map((e) => (e.type === "custom" ? e.data : undefined))).toEqual([1, 2]);
  });
});
