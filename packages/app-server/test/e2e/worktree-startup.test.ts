/**
 * What a starting server does about worktrees a previous one left (real app-server
 * children on one agent dir, a real repository): git's metadata of a worktree whose
 * folder was deleted behind git's back is pruned, an owned worktree whose thread is gone
 * is reported as stale on stderr, a live one is not reported, and the clean, merged ones
 * beyond `worktrees.keep` are removed with a snapshot ref each (never a dirty one).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import type { AppServerClient } from "@knightcode/app-server-protocol";
import { type MockModelServer, textReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, MOCK_MODEL, TARGETS, turnCompleted } from "./harness.ts";
import { gitSync, initRepo, writeFiles } from "./worktree-support.ts";

const stdio = TARGETS.find((t) => t.name === "stdio")!;

/** Resolves with the child's stderr once `done` holds for it; rejects after `ms`. */
async function stderrUntil(stderr: () => string, done: (text: string) => boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!done(stderr())) {
    if (Date.now() > deadline) throw new Error(`stderr never matched; it was:\n${stderr()}`);
    await Bun.sleep(20);
  }
  return stderr();
}

/** Starts a thread in worktree `name` and runs one turn, so the thread has a transcript and outlives its server. */
async function openWorktreeThread(client: AppServerClient, mock: MockModelServer, cwd: string, name: string) {
  const started = await client.request("thread/start", { cwd, model: MOCK_MODEL, worktree: { name } });
  mock.enqueue(textReply(`${name} ok`));
  const done = turnCompleted(client, started.thread.id);
  await client.request("turn/start", { threadId: started.thread.id, text: "hi" });
  await done;
  return started.thread;
}

describe("[stdio] worktrees at start-up", () => {
  test(
    "the next server prunes a worktree deleted behind git's back and reports the one whose thread is gone, deleting nothing",
    async () => {
      await using first = await stdio.start();
      const { client, agent } = first;
      initRepo(agent.cwd);
      const open = (name: string) => openWorktreeThread(client, first.mock, agent.cwd, name);
      const gone = await open("gone");
      const orphan = await open("orphan");
      const live = await open("live");
      await client.request("thread/archive", { threadId: orphan.id });
      await client.request("thread/delete", { threadId: orphan.id });
      await first.shutdown();
      rmSync(gone.worktree!.path, { recursive: true, force: true });
      expect(gitSync(agent.cwd, "worktree", "list", "--porcelain")).toContain(gone.worktree!.path);

      await using second = await stdio.start({ env: { KNIGHTCODE_CODING_AGENT_DIR: agent.agentDir } });
      const stderr = await stderrUntil(
        second.stderr,
        (text) => text.includes("[worktrees] git pruned:") && text.includes("[worktrees] stale worktree"),
      );
      expect(stderr).toContain(`[worktrees] git pruned: ${gone.worktree!.path}`);
      expect(stderr).toContain(`[worktrees] stale worktree ${orphan.worktree!.path} (its thread is gone)`);
      expect(stderr).not.toContain(`stale worktree ${live.worktree!.path}`);
      // git forgot the deleted one; the stale one and the live one are still there
      const listed = gitSync(agent.cwd, "worktree", "list", "--porcelain");
      expect(listed).not.toContain(gone.worktree!.path);
      expect(listed).toContain(orphan.worktree!.path);
      expect(existsSync(orphan.worktree!.path)).toBe(true);
      expect(existsSync(live.worktree!.path)).toBe(true);
      const { worktrees } = await second.client.request("worktree/list", {});
      expect(worktrees.map((w) => [w.name, w.stale]).sort()).toEqual([
        ["live", false],
        ["orphan", true],
      ]);
    },
    E2E_TIMEOUT,
  );

  test(
    "with worktrees.keep 1 the next server removes the clean, merged worktrees beyond the newest, each with a snapshot ref, and keeps a dirty one whose thread is gone",
    async () => {
      await using first = await stdio.start({ settings: { worktrees: { keep: 1 } } });
      const { client, agent } = first;
      initRepo(agent.cwd);
      const open = (name: string) => openWorktreeThread(client, first.mock, agent.cwd, name);
      const oldest = (await open("oldest")).worktree!;
      const older = (await open("older")).worktree!;
      const dirtyThread = await open("dirty");
      const newest = (await open("newest")).worktree!;
      const dirty = dirtyThread.worktree!;
      writeFiles(dirty.path, { "wip.txt": "work in progress\n" });
      await client.request("thread/archive", { threadId: dirtyThread.id });
      await client.request("thread/delete", { threadId: dirtyThread.id });
      await first.shutdown();

      await using second = await stdio.start({ env: { KNIGHTCODE_CODING_AGENT_DIR: agent.agentDir } });
      const stderr = await stderrUntil(
        second.stderr,
        (text) =>
          text.includes(`[worktrees] removed ${oldest.path}`) &&
          text.includes(`[worktrees] removed ${older.path}`) &&
          text.includes(`[worktrees] stale worktree ${dirty.path}`),
      );
      for (const removed of [oldest, older]) {
        const ref = `refs/knightcode/snapshots/${removed.name}`;
        expect(stderr).toContain(
          `[worktrees] removed ${removed.path} (clean and merged, beyond worktrees.keep 1); restorable from ${ref}`,
        );
        // the snapshot sits on the branch's last commit, so the worktree can be restored
        expect(gitSync(agent.cwd, "rev-parse", `${ref}^`)).toBe(gitSync(agent.cwd, "rev-parse", "main"));
        expect(existsSync(removed.path)).toBe(false);
        expect(gitSync(agent.cwd, "branch", "--list", removed.branch).trim()).toBe("");
      }
      expect(stderr).toContain(`[worktrees] stale worktree ${dirty.path} (its thread is gone)`);
      expect(stderr).not.toContain(`removed ${dirty.path}`);
      expect(stderr).not.toContain(`removed ${newest.path}`);
      expect(stderr).not.toContain(`stale worktree ${newest.path}`);
      const listed = gitSync(agent.cwd, "worktree", "list", "--porcelain");
      expect(listed).not.toContain(oldest.path);
      expect(listed).not.toContain(older.path);
      expect(listed).toContain(newest.path);
      expect(listed).toContain(dirty.path);
      expect(existsSync(`${dirty.path}/wip.txt`)).toBe(true);
      expect(
        gitSync(agent.cwd, "for-each-ref", "--format=%(refname)", "refs/knightcode/snapshots/").trim(),
      ).toBe("refs/knightcode/snapshots/older\nrefs/knightcode/snapshots/oldest");
      const { worktrees } = await second.client.request("worktree/list", {});
      expect(worktrees.map((w) => [w.name, w.dirty, w.stale]).sort()).toEqual([
        ["dirty", true, true],
        ["newest", false, false],
      ]);
    },
    E2E_TIMEOUT,
  );
});
