import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createFindTool, createLocalOperations, type FindDetails } from "../../src/index.ts";
import { runTool } from "../helpers/run-tool.ts";
import { type TempDir, tempDir } from "../helpers/temp-dir.ts";

const realFd = Bun.which("fd") ?? Bun.which("fdfind");
if (!realFd) throw new Error("these tests need fd or fdfind installed");

function project(dir: TempDir): void {
  mkdirSync(dir.join("src/deep"), { recursive: true });
  writeFileSync(dir.join("src/a.ts"), "");
  writeFileSync(dir.join("src/deep/b.ts"), "");
  writeFileSync(dir.join("README.md"), "");
  writeFileSync(dir.join(".hidden.ts"), "");
}

/** Operations whose PATH holds only the given executables (name -> target). */
function opsWithPath(dir: TempDir, bins: Record<string, string | { script: string }>) {
  const bin = dir.join("bin");
  mkdirSync(bin);
  for (const [name, target] of Object.entries(bins)) {
    if (typeof target === "string") symlinkSync(target, `${bin}/${name}`);
    else {
      writeFileSync(`${bin}/${name}`, target.script);
      chmodSync(`${bin}/${name}`, 0o755);
    }
  }
  return createLocalOperations({ env: { ...process.env, PATH: bin } });
}

describe("find tool", () => {
  test("finds files by name glob, including dotfiles, relative to the searched folder", async () => {
    await using dir = tempDir();
    project(dir);
    const tool = createFindTool({ cwd: dir.path, ops: createLocalOperations() });
    expect((await runTool(tool, { pattern: "*.ts" })).text).toBe(".hidden.ts\nsrc/a.ts\nsrc/deep/b.ts");
    expect((await runTool(tool, { pattern: "*.ts", path: "src" })).text).toBe("a.ts\ndeep/b.ts");
  });

  test("a glob with a slash matches against the path", async () => {
    await using dir = tempDir();
    project(dir);
    const tool = createFindTool({ cwd: dir.path, ops: createLocalOperations() });
    expect((await runTool(tool, { pattern: "src/deep/*.ts" })).text).toBe("src/deep/b.ts");
  });

  test("falls back to fdfind when only fdfind is on the PATH", async () => {
    await using dir = tempDir();
    project(dir);
    const ops = opsWithPath(dir, { fdfind: realFd });
    const result = await runTool(createFindTool({ cwd: dir.path, ops }), { pattern: "*.md" });
    expect(result.text).toBe("README.md");
    expect((result.details as FindDetails).binary).toBe(dir.join("bin/fdfind"));
  });

  test("prefers fd when both names exist", async () => {
    await using dir = tempDir();
    const ops = opsWithPath(dir, { fd: { script: "#!/bin/sh\necho from-fd\n" }, fdfind: realFd });
    const result = await runTool(createFindTool({ cwd: dir.path, ops }), { pattern: "*" });
    expect(result.text).toBe("from-fd");
  });

  test("without fd or fdfind the call fails with a clear message", async () => {
    await using dir = tempDir();
    const ops = opsWithPath(dir, {});
    const result = await runTool(createFindTool({ cwd: dir.path, ops }), { pattern: "*" });
    expect(result.isError).toBe(true);
    expect(result.text).toBe("fd is not installed (looked for fd and fdfind), so find is unavailable.");
  });

  test("limit stops the listing and says so; no match says so", async () => {
    await using dir = tempDir();
    for (let i = 0; i < 20; i++) writeFileSync(dir.join(`f${i}.txt`), "");
    const tool = createFindTool({ cwd: dir.path, ops: createLocalOperations() });
    const limited = await runTool(tool, { pattern: "*.txt", limit: 5 });
    expect(limited.text.split("\n\n")[0]!.split("\n")).toHaveLength(5);
    expect(limited.text).toEndWith("[Stopped at 5 results; narrow the pattern or raise limit.]");
    expect((await runTool(tool, { pattern: "*.rs" })).text).toBe("No files found.");
  });
});
