import { describe, expect, test } from "bun:test";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { loadContextFiles } from "../src/index.ts";
import { fifo, put } from "./support/files.ts";

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

describe("context files an unvetted project cannot abuse", () => {
  test("a project context file linking outside its directory is refused with a warning", async () => {
    await using dir = await tempAgentDir();
    const secret = await put(dir.root, "home/.ssh/id_rsa", "SECRET-KEY");
    await symlink(secret, join(dir.cwd, "AGENTS.md"));
    await put(dir.cwd, "CLAUDE.md", "plain claude");
    const { files, warnings } = await loadContextFiles({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(JSON.stringify(files)).not.toContain("SECRET-KEY");
    // The refused link counts as absent, so the next name in the directory applies.
    expect(files.map((f) => f.content)).toEqual(["plain claude"]);
    expect(warnings).toEqual([
      expect.objectContaining({ source: "server", path: join(dir.cwd, "AGENTS.md") }),
    ]);
    expect(warnings[0]?.message).toContain("links outside");
  });

  test("links into a device or up a level are refused too", async () => {
    await using dir = await tempAgentDir();
    const cwd = join(dir.root, "repo", "pkg");
    await put(dir.root, "repo/shared.md", "shared");
    await mkdir(cwd, { recursive: true });
    await symlink("../shared.md", join(cwd, "AGENTS.md"));
    await symlink("/dev/zero", join(cwd, "CLAUDE.md"));
    const { files, warnings } = await loadContextFiles({ agentDir: dir.agentDir, cwd });
    expect(files).toEqual([]);
    expect(warnings.map((w) => w.path)).toEqual([join(cwd, "AGENTS.md"), join(cwd, "CLAUDE.md")]);
  });

  test("a link inside the same directory (CLAUDE.md -> AGENTS.md style) still loads", async () => {
    await using dir = await tempAgentDir();
    await put(dir.cwd, "docs/agents.md", "linked instructions");
    await symlink("docs/agents.md", join(dir.cwd, "AGENTS.md"));
    const { files, warnings } = await loadContextFiles({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(warnings).toEqual([]);
    expect(files.map((f) => f.content)).toEqual(["linked instructions"]);
  });

  test("the agent dir is the user's own: its context file may link anywhere", async () => {
    await using dir = await tempAgentDir();
    const shared = await put(dir.root, "dotfiles/AGENTS.md", "my global rules");
    await symlink(shared, join(dir.agentDir, "AGENTS.md"));
    const { files } = await loadContextFiles({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(files.map((f) => [f.scope, f.content])).toEqual([["agent", "my global rules"]]);
  });

  test("a FIFO named like a context file is reported, not read (it would block forever)", async () => {
    await using dir = await tempAgentDir();
    const path = await fifo(dir.cwd, "AGENTS.md");
    await put(dir.cwd, "CLAUDE.md", "after the fifo");
    const { files, warnings } = await loadContextFiles({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(files.map((f) => f.content)).toEqual(["after the fifo"]);
    expect(warnings).toEqual([expect.objectContaining({ source: "server", path })]);
  });
});
