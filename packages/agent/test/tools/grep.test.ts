import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { createGrepTool, createLocalOperations, type GrepDetails } from "../../src/index.ts";
import { runTool } from "../helpers/run-tool.ts";
import { tempDir } from "../helpers/temp-dir.ts";

describe("grep tool", () => {
  test("returns path:line:text for each match", async () => {
    await using dir = tempDir();
    mkdirSync(dir.join("src"));
    writeFileSync(dir.join("src/a.ts"), "const alpha = 1;\nconst beta = 2;\n");
    writeFileSync(dir.join("b.md"), "Alpha here\n");
    const tool = createGrepTool({ cwd: dir.path, ops: createLocalOperations() });
    expect((await runTool(tool, { pattern: "alpha" })).text).toBe("src/a.ts:1:const alpha = 1;");
    const insensitive = await runTool(tool, { pattern: "alpha", ignoreCase: true });
    expect(insensitive.text.split("\n").sort()).toEqual(["b.md:1:Alpha here", "src/a.ts:1:const alpha = 1;"]);
    expect((await runTool(tool, { pattern: "Alpha|beta", glob: "*.ts" })).text).toBe(
      "src/a.ts:2:const beta = 2;",
    );
    expect((await runTool(tool, { pattern: "beta", path: "src/a.ts" })).text).toBe(
      "src/a.ts:2:const beta = 2;",
    );
  });

  test("a pattern starting with a dash is a pattern, not an option", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("f.txt"), "use --force here\n");
    const tool = createGrepTool({ cwd: dir.path, ops: createLocalOperations() });
    expect((await runTool(tool, { pattern: "--force" })).text).toBe("f.txt:1:use --force here");
  });

  test("limit stops the search with a marker", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("many.txt"), "hit\n".repeat(50));
    const tool = createGrepTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { pattern: "hit", limit: 3 });
    expect(result.text).toBe(
      "many.txt:1:hit\nmany.txt:2:hit\nmany.txt:3:hit\n\n[Stopped at 3 matches; narrow the pattern or path, or raise limit.]",
    );
    expect((result.details as GrepDetails).limitReached).toBe(true);
  });

  test("exactly limit matches are all shown without a stop marker", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("three.txt"), "hit\nhit\nhit\n");
    const tool = createGrepTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { pattern: "hit", limit: 3 });
    expect(result.text).toBe("three.txt:1:hit\nthree.txt:2:hit\nthree.txt:3:hit");
    expect((result.details as GrepDetails).limitReached).toBe(false);
  });

  test("a match in a huge line is cut at 500 characters", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("min.js"), `${"a".repeat(5_000_000)}needle${"b".repeat(100)}\nshort needle\n`);
    const tool = createGrepTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { pattern: "needle" });
    const [long, short] = result.text.split("\n");
    expect(long).toBe(`min.js:1:${"a".repeat(491)}… [line cut at 500 chars]`);
    expect(short).toBe("min.js:2:short needle");
    expect((result.details as GrepDetails).matches).toBe(2);
  });

  test("no matches, a bad regex and a missing path are reported", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("f.txt"), "text\n");
    const tool = createGrepTool({ cwd: dir.path, ops: createLocalOperations() });
    expect((await runTool(tool, { pattern: "absent" })).text).toBe("No matches found.");
    const bad = await runTool(tool, { pattern: "(unclosed" });
    expect(bad.isError).toBe(true);
    expect(bad.text).toStartWith("grep failed: ");
    expect((await runTool(tool, { pattern: "x", path: "nope" })).text).toBe("Path not found: nope");
  });

  test("without ripgrep the call fails with a clear message", async () => {
    await using dir = tempDir();
    const tool = createGrepTool({ cwd: dir.path, ops: createLocalOperations({ env: { PATH: dir.path } }) });
    const result = await runTool(tool, { pattern: "x" });
    expect(result.text).toBe("ripgrep (rg) is not installed, so grep is unavailable.");
  });
});
