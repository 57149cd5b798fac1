import { describe, expect, test } from "bun:test";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { loadContextFiles } from "../src/index.ts";
import { put } from "./support/files.ts";

describe("context files", () => {
  test("agent dir first, then the cwd's ancestors from the outermost in", async () => {
    await using dir = await tempAgentDir();
    const repo = join(dir.root, "repo");
    const cwd = join(repo, "pkg", "sub");
    await mkdir(cwd, { recursive: true });
    await put(dir.agentDir, "AGENTS.md", "global");
    await put(dir.root, "CLAUDE.md", "root claude");
    await put(repo, "AGENTS.md", "repo");
    await put(cwd, "AGENTS.md", "sub");
    const { files, warnings } = await loadContextFiles({ agentDir: dir.agentDir, cwd });
    expect(warnings).toEqual([]);
    expect(files.map((f) => [f.scope, f.content])).toEqual([
      ["agent", "global"],
      ["project", "root claude"],
      ["project", "repo"],
      ["project", "sub"],
    ]);
    expect(files[2]?.path).toBe(join(repo, "AGENTS.md"));
  });

  test("AGENTS.override.md replaces AGENTS.md and CLAUDE.md only in its own directory", async () => {
    await using dir = await tempAgentDir();
    const cwd = join(dir.root, "repo");
    await put(dir.agentDir, "AGENTS.md", "global");
    await put(dir.root, "AGENTS.md", "parent");
    await put(cwd, "AGENTS.md", "plain");
    await put(cwd, "CLAUDE.md", "claude");
    await put(cwd, "AGENTS.override.md", "override");
    const { files } = await loadContextFiles({ agentDir: dir.agentDir, cwd });
    expect(files.map((f) => f.content)).toEqual(["global", "parent", "override"]);
  });

  test("one file per directory in the order AGENTS.md, AGENTS.MD, CLAUDE.md, CLAUDE.MD", async () => {
    await using dir = await tempAgentDir();
    const a = join(dir.root, "a");
    const b = join(a, "b");
    const c = join(b, "c");
    await put(a, "AGENTS.MD", "upper agents");
    await put(a, "CLAUDE.md", "claude a");
    await put(b, "CLAUDE.MD", "upper claude");
    await put(c, "CLAUDE.md", "claude c");
    await put(c, "CLAUDE.MD", "upper claude c");
    const { files } = await loadContextFiles({ agentDir: dir.agentDir, cwd: c });
    expect(files.map((f) => f.content)).toEqual(["upper agents", "upper claude", "claude c"]);
  });

  test("needs no trust and reads through a symlinked cwd once", async () => {
    await using dir = await tempAgentDir();
    await put(dir.cwd, "AGENTS.md", "project");
    await put(dir.cwd, ".knightcode/settings.json", "{}");
    const alias = join(dir.root, "alias");
    await symlink(dir.cwd, alias);
    const { files } = await loadContextFiles({ agentDir: dir.agentDir, cwd: alias });
    expect(files.map((f) => f.path)).toEqual([join(dir.cwd, "AGENTS.md")]);
  });

  test("an agent dir inside the cwd chain is not read twice", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "AGENTS.md", "once");
    const { files } = await loadContextFiles({ agentDir: dir.agentDir, cwd: dir.agentDir });
    expect(files.map((f) => f.content)).toEqual(["once"]);
  });

  test("a directory named like a context file is skipped", async () => {
    await using dir = await tempAgentDir();
    await mkdir(join(dir.cwd, "AGENTS.md"));
    await put(dir.cwd, "CLAUDE.md", "fallback");
    const { files, warnings } = await loadContextFiles({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(files.map((f) => f.content)).toEqual(["fallback"]);
    expect(warnings).toEqual([]);
  });
});
