import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createLocalOperations, MAX_BYTES } from "../../src/index.ts";
import { OutputCollector } from "../../src/tools/output-collector.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const encode = (s: string) => new TextEncoder().encode(s);

describe("OutputCollector", () => {
  test("a character split across chunks decodes whole; small output is not spooled", async () => {
    await using dir = tempDir();
    const collector = new OutputCollector(createLocalOperations({ tempDir: dir.path }));
    const bytes = encode("héllo\n");
    collector.push(bytes.subarray(0, 2));
    collector.push(bytes.subarray(2));
    const { truncation, fullOutputPath } = await collector.finish();
    expect(truncation).toMatchObject({ content: "héllo\n", truncated: false, totalLines: 1 });
    expect(fullOutputPath).toBeUndefined();
  });

  test("a character split across stdout chunks survives a stderr chunk arriving in between", async () => {
    await using dir = tempDir();
    const collector = new OutputCollector(createLocalOperations({ tempDir: dir.path }));
    const e = encode("é\n");
    collector.push(e.subarray(0, 1), "stdout");
    collector.push(encode("warn\n"), "stderr");
    collector.push(e.subarray(1), "stdout");
    const { truncation } = await collector.finish();
    expect(truncation.content).toBe("warn\né\n");
  });

  test("output past the byte limit is spooled in full and counted exactly", async () => {
    await using dir = tempDir();
    const collector = new OutputCollector(createLocalOperations({ tempDir: dir.path }));
    const line = `${"y".repeat(99)}\n`;
    const total = Math.ceil((MAX_BYTES * 5) / line.length);
    for (let i = 0; i < total; i++) collector.push(encode(line));
    const { truncation, fullOutputPath } = await collector.finish();
    expect(truncation.truncated).toBe(true);
    expect(truncation.totalLines).toBe(total);
    expect(truncation.totalBytes).toBe(total * line.length);
    expect(readFileSync(fullOutputPath!, "utf8")).toBe(line.repeat(total));
  });

  test("a spool that cannot be written still returns the truncated output", async () => {
    await using dir = tempDir();
    const collector = new OutputCollector(createLocalOperations({ tempDir: dir.join("missing-dir") }));
    for (let i = 0; i < 300; i++) collector.push(encode(`${"z".repeat(999)}\n`));
    const { truncation, fullOutputPath } = await collector.finish();
    expect(truncation.truncated).toBe(true);
    expect(fullOutputPath).toBeUndefined();
    expect(truncation).toMatchObject({ totalLines: 300, totalBytes: 300_000 });
  });
});
