import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { createLocalOperations, createWriteTool, type FileChange } from "../../src/index.ts";
import { runTool } from "../helpers/run-tool.ts";
import { tempDir } from "../helpers/temp-dir.ts";

describe("write tool", () => {
  test("creates missing parent folders and reports an add with a diff", async () => {
    await using dir = tempDir();
    const tool = createWriteTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { path: "deep/er/new.txt", content: "hello\n" });
    const file = dir.join("deep/er/new.txt");
    expect(readFileSync(file, "utf8")).toBe("hello\n");
    const changes = (result.details as { fileChanges: FileChange[] }).fileChanges;
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ path: file, kind: "add" });
    expect(changes[0]!.diff).toContain("+hello");
    expect(result.text).toBe("Created deep/er/new.txt (6 bytes).");
  });

  test("overwriting reports a modify; identical content reports no diff", async () => {
    await using dir = tempDir();
    const file = dir.join("f.txt");
    writeFileSync(file, "old\n");
    const tool = createWriteTool({ cwd: dir.path, ops: createLocalOperations() });
    const changed = await runTool(tool, { path: file, content: "new\n" });
    expect((changed.details as { fileChanges: FileChange[] }).fileChanges[0]).toMatchObject({
      kind: "modify",
    });
    expect((changed.details as { diff: string }).diff).toContain("-old\n+new");
    const same = await runTool(tool, { path: file, content: "new\n" });
    expect((same.details as { fileChanges: FileChange[] }).fileChanges).toEqual([
      { path: file, kind: "modify" },
    ]);
  });

  test("replacing a binary file reports a modify without a diff", async () => {
    await using dir = tempDir();
    const file = dir.join("blob.bin");
    writeFileSync(file, Uint8Array.from([0x89, 0, 0xff, 0xfe, 0]));
    const tool = createWriteTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { path: "blob.bin", content: "text now\n" });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(file, "utf8")).toBe("text now\n");
    expect((result.details as { fileChanges: FileChange[] }).fileChanges).toEqual([
      { path: file, kind: "modify" },
    ]);
  });

  test("writing onto a folder fails", async () => {
    await using dir = tempDir();
    const tool = createWriteTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { path: ".", content: "x" });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(". is a directory.");
  });
});
