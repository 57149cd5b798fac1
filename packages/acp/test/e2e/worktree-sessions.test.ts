/**
 * `knightcode acp`: a `session/new` whose `_meta.knightcode.worktree` asks for it starts
 * the session's thread in a server-owned git worktree of the editor's repository; the
 * main checkout is left alone. Without it, no worktree is made.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitSync } from "@knightcode/testkit";
import { acpWorld, startAcp } from "../support/acp-child.ts";

describe("knightcode acp: sessions in worktrees", () => {
  test("session/new with _meta.knightcode.worktree works in a new worktree; without it none is made", async () => {
    await using world = await acpWorld();
    const cwd = world.agent.cwd;
    gitSync(cwd, "init", "-q", "-b", "main");
    writeFileSync(join(cwd, "a.txt"), "a\n");
    gitSync(cwd, "add", "-A");
    gitSync(cwd, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "init");
    await using acp = await startAcp(world);
    await acp.agent.request("session/new", { cwd, mcpServers: [] });
    expect(gitSync(cwd, "worktree", "list").trim().split("\n")).toHaveLength(1);
    await acp.agent.request("session/new", {
      cwd,
      mcpServers: [],
      _meta: { knightcode: { worktree: { name: "editor" } } },
    });
    const worktrees = gitSync(cwd, "worktree", "list", "--porcelain");
    expect(worktrees).toContain("branch refs/heads/knightcode/editor");
    const root = join(world.agent.agentDir, "worktrees");
    const [repoId] = readdirSync(root);
    expect(existsSync(join(root, repoId!, "editor", "a.txt"))).toBe(true);
    expect(gitSync(cwd, "status", "--porcelain")).toBe("");
    expect(acp.schemaProblems()).toEqual([]);
  }, 60_000);
});
