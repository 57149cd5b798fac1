import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { createLocalOperations, createReadTool, createWriteTool, MAX_BYTES } from "../../src/index.ts";
import { runTool } from "../helpers/run-tool.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

function lines(n: number, width = 10): string {
  return Array.from({ length: n }, (_, i) => `line ${String(i + 1).padEnd(width, "x")}`).join("\n") + "\n";
}

describe("read tool", () => {
  test("returns numbered lines and honours offset and limit", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("f.txt"), "a\nb\nc\nd\n");
    const tool = createReadTool({ cwd: dir.path, ops: createLocalOperations() });
    const all = await runTool(tool, { path: "f.txt" });
    expect(all.text).toBe("1\ta\n2\tb\n3\tc\n4\td");
    const part = await runTool(tool, { path: "f.txt", offset: 2, limit: 2 });
    expect(part.text).toBe("2\tb\n3\tc\n\n[1 more lines in the file. Use offset=4 to continue.]");
  });

  test("a file over 2,000 lines is cut with a hint to read on", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("big.txt"), lines(2500));
    const tool = createReadTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { path: "big.txt" });
    expect(result.text).toContain("2000\tline 2000");
    expect(result.text).not.toContain("line 2001");
    expect(result.text).toEndWith("[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]");
    const next = await runTool(tool, { path: "big.txt", offset: 2001 });
    expect(next.text.startsWith("2001\tline 2001")).toBe(true);
    expect(next.text).toContain("2500\tline 2500");
  });

  test("output over 50 KB is cut at a line boundary with a byte-limit marker", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("wide.txt"), lines(1000, 200));
    const tool = createReadTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { path: "wide.txt" });
    const marker = /\[Showing lines 1-(\d+) of 1000 \(50 KB limit\)\. Use offset=(\d+) to continue\.\]$/.exec(
      result.text,
    );
    expect(marker).not.toBeNull();
    expect(Number(marker![2])).toBe(Number(marker![1]) + 1);
    const body = result.text.slice(0, result.text.indexOf("\n\n["));
    expect(new TextEncoder().encode(body).length).toBeLessThanOrEqual(MAX_BYTES);
  });

  test("a single line over 50 KB tells how to read part of it", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("one.txt"), `${"z".repeat(60_000)}\n`);
    const tool = createReadTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { path: "one.txt" });
    expect(result.text).toContain("[Line 1 is 58.6 KB, over the 50 KB limit.");
    expect(result.text).toContain("sed -n '1p' one.txt |");
  });

  test("the recipe for a long line quotes a path the shell would split", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("it's long.txt"), `short\n${"z".repeat(60_000)}\n`);
    const tool = createReadTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { path: "it's long.txt", offset: 2 });
    expect(result.text).toContain(`sed -n '2p' 'it'\\''s long.txt' | head -c ${MAX_BYTES}]`);
  });

  test("images are recognized by signature, not by name", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("picture.txt"), PNG);
    writeFileSync(dir.join("notes.png"), "just text\n");
    const tool = createReadTool({ cwd: dir.path, ops: createLocalOperations() });
    const image = await runTool(tool, { path: "picture.txt" });
    expect(image.content[1]).toEqual({
      type: "image",
      mimeType: "image/png",
      data: Buffer.from(PNG).toString("base64"),
    });
    const textFile = await runTool(tool, { path: "notes.png" });
    expect(textFile.text).toBe("1\tjust text");
  });

  test("CRLF and a BOM do not leak into the numbered text", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("w.txt"), "\uFEFFx\r\ny\r\n");
    const tool = createReadTool({ cwd: dir.path, ops: createLocalOperations() });
    expect((await runTool(tool, { path: "w.txt" })).text).toBe("1\tx\n2\ty");
  });

  test("a FIFO is refused instead of blocking the read forever", async () => {
    await using dir = tempDir();
    const fifo = dir.join("pipe");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const read = createReadTool({ cwd: dir.path, ops: createLocalOperations() });
    const write = createWriteTool({ cwd: dir.path, ops: createLocalOperations() });
    expect((await runTool(read, { path: "pipe" })).text).toBe("pipe is not a regular file.");
    expect((await runTool(write, { path: "pipe", content: "x" })).text).toBe("pipe is not a regular file.");
  });

  test("missing files, folders, binaries and offsets past the end are clear errors", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("short.txt"), "one\n");
    writeFileSync(dir.join("bin.dat"), Uint8Array.from([1, 0, 2, 3]));
    const tool = createReadTool({ cwd: dir.path, ops: createLocalOperations() });
    expect((await runTool(tool, { path: "nope.txt" })).text).toBe("File not found: nope.txt");
    expect((await runTool(tool, { path: "." })).text).toContain("is a directory");
    expect((await runTool(tool, { path: "bin.dat" })).text).toContain("binary file");
    const past = await runTool(tool, { path: "short.txt", offset: 5 });
    expect(past.isError).toBe(true);
    expect(past.text).toBe("Offset 5 is beyond the end of short.txt (1 lines).");
  });
});
