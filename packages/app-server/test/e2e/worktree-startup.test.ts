/**
 * What a starting server does about worktrees a previous one left (real app-server
 * children on one agent dir, a real repository): git's metadata of a worktree whose
 * folder was deleted behind git's back is pruned, and an owned worktree whose thread is
 * gone is reported as stale on stderr, never deleted; a live one is not reported.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { textReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, MOCK_MODEL, TARGETS, turnCompleted } from "./harness.ts";
import { gitSync, initRepo } from "./worktree-support.ts";

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

describe("[stdio] worktrees at start-up", () => {
  test(
    "the next server prunes a worktree deleted behind git's back and reports the one whose thread is gone, deleting nothing",
    async () => {
      await using first = await stdio.start();
      const { client, agent } = first;
      initRepo(agent.cwd);
      const open = async (name: string) => {
        const started = await client.request("thread/start", {
          cwd: agent.cwd,
          model: MOCK_MODEL,
          worktree: { name },
        });
        // a turn, so the thread has a transcript and outlives this server
        first.mock.enqueue(textReply(`${name} ok`));
        const done = turnCompleted(client, started.thread.id);
        await client.request("turn/start", { threadId: started.thread.id, text: "hi" });
        await done;
        return started.thread;
      };
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
});
