import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createEditTool, createLocalOperations, createWriteTool } from "../../src/index.ts";
import { tempDir } from "../helpers/temp-dir.ts";

describe("file tool previews", () => {
  test("an edit's preview is the diff it would apply, and the file is left as it was", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("a.txt"), "one\r\ntwo\r\nthree\r\n");
    const tool = createEditTool({ cwd: dir.path, ops: createLocalOperations() });
    const preview = await tool.preview!({ path: "a.txt", edits: [{ oldText: "two", newText: "2" }] });
    expect(preview.path).toBe(dir.join("a.txt"));
    expect(preview.kind).toBe("modify");
    expect(preview.diff).toContain("-two\n+2\n");
    expect(preview.error).toBeUndefined();
    expect(readFileSync(dir.join("a.txt"), "utf8")).toBe("one\r\ntwo\r\nthree\r\n");
  });

  test("an edit that would fail previews the error it would fail with", async () => {
    await using dir = tempDir();
    writeFileSync(dir.join("a.txt"), "alpha\n");
    const tool = createEditTool({ cwd: dir.path, ops: createLocalOperations() });
    const missing = await tool.preview!({ path: "a.txt", edits: [{ oldText: "gamma", newText: "x" }] });
    expect(missing.diff).toBeUndefined();
    expect(missing.error).toContain("a.txt");
    const absent = await tool.preview!({ path: "nope.txt", edits: [{ oldText: "a", newText: "b" }] });
    expect(absent.error).toBe("File not found: nope.txt. Use write to create a new file.");
  });

  test("a write's preview says whether the file is new and creates nothing", async () => {
    await using dir = tempDir();
    const tool = createWriteTool({ cwd: dir.path, ops: createLocalOperations() });
    const added = await tool.preview!({ path: "sub/new.txt", content: "hello\nworld\n" });
    expect(added).toMatchObject({ path: dir.join("sub/new.txt"), kind: "add" });
    expect(added.diff).toContain("+hello\n+world\n");
    expect(existsSync(dir.join("sub"))).toBe(false);
    writeFileSync(dir.join("old.txt"), "before\n");
    const modified = await tool.preview!({ path: "old.txt", content: "after\n" });
    expect(modified.kind).toBe("modify");
    expect(modified.diff).toContain("-before\n+after\n");
    expect(readFileSync(dir.join("old.txt"), "utf8")).toBe("before\n");
  });

  test("a write onto a folder previews the error", async () => {
    await using dir = tempDir();
    const tool = createWriteTool({ cwd: dir.path, ops: createLocalOperations() });
    const preview = await tool.preview!({ path: ".", content: "x" });
    expect(preview.error).toBe(". is a directory.");
  });
});
