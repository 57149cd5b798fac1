import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { createLocalOperations, createLsTool } from "../../src/index.ts";
import { runTool } from "../helpers/run-tool.ts";
import { tempDir } from "../helpers/temp-dir.ts";

describe("ls tool", () => {
  test("lists entries sorted by name, folders with a slash, dotfiles included", async () => {
    await using dir = tempDir();
    mkdirSync(dir.join("src"));
    writeFileSync(dir.join("b.txt"), "");
    writeFileSync(dir.join("A.md"), "");
    writeFileSync(dir.join(".env"), "");
    const tool = createLsTool({ cwd: dir.path, ops: createLocalOperations() });
    expect((await runTool(tool, {})).text).toBe(".env\nA.md\nb.txt\nsrc/");
  });

  test("limit cuts the list and says how many were left out", async () => {
    await using dir = tempDir();
    for (const name of ["a", "b", "c", "d"]) writeFileSync(dir.join(name), "");
    const tool = createLsTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { limit: 2 });
    expect(result.text).toBe("a\nb\n\n[2 more entries; raise limit to see them.]");
    expect(result.details).toEqual({ count: 2, limitReached: true });
  });

  test("empty folders, missing paths and files are reported", async () => {
    await using dir = tempDir();
    mkdirSync(dir.join("empty"));
    writeFileSync(dir.join("file"), "");
    const tool = createLsTool({ cwd: dir.path, ops: createLocalOperations() });
    expect((await runTool(tool, { path: "empty" })).text).toBe("(empty directory)");
    expect((await runTool(tool, { path: "missing" })).text).toBe("Path not found: missing");
    expect((await runTool(tool, { path: "file" })).isError).toBe(true);
  });
});
