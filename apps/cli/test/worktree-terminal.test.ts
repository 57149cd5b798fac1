/**
 * `knightcode -w` in a pseudo-terminal over a real git repository: the footer names the
 * worktree's branch, `/diff` shows the turn's change, `/merge` lands it on the source
 * branch, and on exit a worktree with work is kept and named while one without any is
 * removed.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { mockedAgent, runCli } from "./support/cli-run.ts";
import { PtySession } from "./support/pty-session.ts";

function git(cwd: string, ...args: string[]): string {
  const run = Bun.spawnSync(["git", ...args], { cwd });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString()}`);
  return run.stdout.toString();
}

function initRepo(dir: string): void {
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.name", "Test");
  git(dir, "config", "user.email", "test@example.com");
  writeFileSync(join(dir, "notes.txt"), "alpha\nbeta\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "initial");
}

/** A check on the screen text with its wrapped lines joined again (long paths wrap). */
const unwrapped = (needle: string) => (text: string) => text.replace(/\n/g, "").includes(needle);

describe("knightcode -w", () => {
  test("-w names the branch in the footer; /diff shows the turn's change; /merge squashes it onto main; exit keeps the worktree and names its branch", async () => {
    await using env = await mockedAgent();
    initRepo(env.agent.cwd);
    env.mock.enqueue(
      toolCallReply({ name: "write", arguments: { path: "notes.txt", content: "alpha\ngamma\n" } }),
      textReply("rewrote the notes"),
    );
    await using tty = new PtySession(["-w", "feature"], { cwd: env.agent.cwd, env: env.env, rows: 50 });
    await tty.waitFor("⎇ knightcode/feature");
    tty.type("rewrite the notes");
    await tty.waitFor("rewrote the notes");
    // the main checkout is untouched by the turn
    expect(readFileSync(join(env.agent.cwd, "notes.txt"), "utf8")).toBe("alpha\nbeta\n");
    tty.type("/diff");
    await tty.waitFor((text) => text.includes("Changes against the last turn") && text.includes("+gamma"));
    expect(tty.text()).toContain("-beta");
    tty.type("/merge squash notes rewritten");
    await tty.waitFor("Merged knightcode/feature into main (squash): 1 commit");
    expect(git(env.agent.cwd, "log", "-1", "--format=%s", "main").trim()).toBe("notes rewritten");
    expect(readFileSync(join(env.agent.cwd, "notes.txt"), "utf8")).toBe("alpha\ngamma\n");
    tty.type("/quit");
    await tty.waitFor(unwrapped("with its changes on branch knightcode/feature."));
    expect(await tty.exited).toBe(0);
    expect(
      git(env.agent.cwd, "rev-parse", "--verify", "--quiet", "refs/heads/knightcode/feature").trim(),
    ).not.toBe("");
  }, 60_000);

  test("-w without a name makes a worktree with a generated name; exiting without changes removes it", async () => {
    await using env = await mockedAgent();
    initRepo(env.agent.cwd);
    await using tty = new PtySession(["-w"], { cwd: env.agent.cwd, env: env.env });
    const screen = await tty.waitFor(/⎇ knightcode\/wt-[0-9a-f]{8}/);
    const name = /⎇ knightcode\/(wt-[0-9a-f]{8})/.exec(screen)![1]!;
    tty.type("/diff");
    await tty.waitFor("No changes against the base.");
    tty.type("/quit");
    const after = await tty.waitFor(unwrapped("(no changes)."));
    const path = /Removed the worktree (\S+) \(no changes\)/.exec(after.replace(/\n/g, ""))?.[1];
    expect(await tty.exited).toBe(0);
    expect(path).toContain(name);
    expect(existsSync(path!)).toBe(false);
    expect(git(env.agent.cwd, "worktree", "list").trim().split("\n")).toHaveLength(1);
  }, 60_000);
});

describe("knightcode -w -p", () => {
  test("print mode keeps a worktree with changes and names its branch on stderr; the answer stays alone on stdout", async () => {
    await using env = await mockedAgent();
    initRepo(env.agent.cwd);
    env.mock.enqueue(
      toolCallReply({ name: "write", arguments: { path: "notes.txt", content: "alpha\ndelta\n" } }),
      textReply("rewrote the notes"),
    );
    const run = await runCli(["-w", "printed", "--approval-mode", "fullAccess", "-p", "rewrite the notes"], {
      cwd: env.agent.cwd,
      env: env.env,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("rewrote the notes\n");
    const kept = /Kept the worktree (\S+) with its changes on branch knightcode\/printed\./.exec(run.stderr);
    expect(kept).not.toBeNull();
    expect(readFileSync(join(kept![1]!, "notes.txt"), "utf8")).toBe("alpha\ndelta\n");
    expect(readFileSync(join(env.agent.cwd, "notes.txt"), "utf8")).toBe("alpha\nbeta\n");
    expect(git(env.agent.cwd, "worktree", "list").trim().split("\n")).toHaveLength(2);
  }, 60_000);

  test("print mode removes a worktree its turn left unchanged, and says so on stderr", async () => {
    await using env = await mockedAgent();
    initRepo(env.agent.cwd);
    env.mock.enqueue(textReply("nothing to do"));
    const run = await runCli(["-w", "idle", "-p", "look around"], { cwd: env.agent.cwd, env: env.env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("nothing to do\n");
    const removed = /Removed the worktree (\S+) \(no changes\)\./.exec(run.stderr);
    expect(removed).not.toBeNull();
    expect(removed![1]).toContain("idle");
    expect(existsSync(removed![1]!)).toBe(false);
    expect(git(env.agent.cwd, "worktree", "list").trim().split("\n")).toHaveLength(1);
    expect(git(env.agent.cwd, "branch", "--list", "knightcode/idle").trim()).toBe("");
  }, 60_000);
});
