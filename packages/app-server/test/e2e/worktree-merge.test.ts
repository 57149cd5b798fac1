/**
 * `worktree/merge`, `worktree/remove` and `worktree/list` end to end over a real server
 * and real repositories: each strategy lands commits on the source branch (and the main
 * checkout's files follow), a conflict is refused before anything moves, removal keeps a
 * snapshot a resume restores, and a merge waits for no running turn.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AppServerClient } from "@knightcode/app-server-protocol";
import { E2E_TIMEOUT, errorCode, MOCK_MODEL, TARGETS, turnHeldAtApproval } from "./harness.ts";
import { commitAll, gitSync, initRepo, writeFiles } from "./worktree-support.ts";

async function inWorktree(
  client: AppServerClient,
  cwd: string,
  name: string,
  approvalMode: "ask" | "fullAccess" = "fullAccess",
) {
  const started = await client.request("thread/start", {
    cwd,
    model: MOCK_MODEL,
    approvalMode,
    worktree: { name },
  });
  return { threadId: started.thread.id, path: started.thread.worktree!.path };
}

const log = (dir: string) => gitSync(dir, "log", "--format=%s", "main").trim().split("\n");

for (const target of TARGETS) {
  describe(`[${target.name}] worktree merge and removal`, () => {
    test(
      "worktree/merge squash, merge and rebase land commits on the source branch, and the main checkout follows",
      async () => {
        await using server = await target.start();
        const { client, agent } = server;
        initRepo(agent.cwd);
        const squash = await inWorktree(client, agent.cwd, "squash");
        const merge = await inWorktree(client, agent.cwd, "merge");
        const rebase = await inWorktree(client, agent.cwd, "rebase");

        // squash: a committed and an uncommitted change become one commit
        writeFiles(squash.path, { "a.txt": "a\n" });
        commitAll(squash.path, "add a");
        writeFiles(squash.path, { "b.txt": "b\n" });
        const squashed = await client.request("worktree/merge", {
          threadId: squash.threadId,
          strategy: "squash",
          message: "squash work",
        });
        expect(squashed).toMatchObject({ target: "main", commits: 1, committedChanges: true });
        expect(log(agent.cwd).slice(0, 1)).toEqual(["squash work"]);
        expect(readFileSync(join(agent.cwd, "b.txt"), "utf8")).toBe("b\n");
        expect(gitSync(agent.cwd, "status", "--porcelain")).toBe("");
        expect(gitSync(squash.path, "status", "--porcelain")).toBe("");

        // merge: main moved meanwhile, so a merge commit joins both
        writeFiles(merge.path, { "c.txt": "c\n" });
        const merged = await client.request("worktree/merge", {
          threadId: merge.threadId,
          strategy: "merge",
        });
        expect(merged.commits).toBe(2);
        expect(gitSync(agent.cwd, "rev-list", "--parents", "-1", "main").trim().split(" ")).toHaveLength(3);
        expect(existsSync(join(agent.cwd, "c.txt"))).toBe(true);

        // rebase: two commits replayed on the new main, authors kept, in order
        writeFiles(rebase.path, { "d.txt": "d\n" });
        commitAll(rebase.path, "add d");
        writeFiles(rebase.path, { "e.txt": "e\n" });
        const rebased = await client.request("worktree/merge", {
          threadId: rebase.threadId,
          strategy: "rebase",
          message: "add e",
        });
        expect(rebased.commits).toBe(2);
        expect(log(agent.cwd).slice(0, 2)).toEqual(["add e", "add d"]);
        expect(gitSync(agent.cwd, "rev-list", "--parents", "-1", "main").trim().split(" ")).toHaveLength(2);
        expect(gitSync(rebase.path, "rev-parse", "HEAD")).toBe(gitSync(agent.cwd, "rev-parse", "main"));
        expect(readFileSync(join(agent.cwd, "e.txt"), "utf8")).toBe("e\n");
      },
      E2E_TIMEOUT,
    );

    test(
      "worktree/list marks clean, merged worktrees beyond the worktrees.keep setting stale, newest kept; dirty or unmerged ones never",
      async () => {
        await using server = await target.start({ settings: { worktrees: { keep: 1 } } });
        const { client, agent } = server;
        initRepo(agent.cwd);
        await inWorktree(client, agent.cwd, "oldest");
        await inWorktree(client, agent.cwd, "older");
        const dirty = await inWorktree(client, agent.cwd, "dirty");
        await inWorktree(client, agent.cwd, "newest");
        writeFiles(dirty.path, { "wip.txt": "work\n" });
        const listed = await client.request("worktree/list", { cwd: agent.cwd });
        const state = Object.fromEntries(
          listed.worktrees.map((w) => [w.name, [w.dirty, w.unmerged, w.stale]]),
        );
        expect(state).toEqual({
          newest: [false, false, false],
          dirty: [true, false, false],
          older: [false, false, true],
          oldest: [false, false, true],
        });
        // reported, never deleted
        expect(listed.worktrees.every((w) => existsSync(w.path))).toBe(true);
      },
      E2E_TIMEOUT,
    );

    test(
      "worktree/merge that would conflict is refused with worktreeConflict and data.files, both trees as they were",
      async () => {
        await using server = await target.start();
        const { client, agent } = server;
        initRepo(agent.cwd);
        const wt = await inWorktree(client, agent.cwd, "clash");
        writeFiles(agent.cwd, { "shared.txt": "main's line\n" });
        commitAll(agent.cwd, "main edits");
        writeFiles(wt.path, { "shared.txt": "worktree's line\n", "extra.txt": "x\n" });
        const before = {
          main: gitSync(agent.cwd, "rev-parse", "main"),
          branch: gitSync(wt.path, "rev-parse", "HEAD"),
          mainStatus: gitSync(agent.cwd, "status", "--porcelain"),
          wtStatus: gitSync(wt.path, "status", "--porcelain"),
        };
        for (const strategy of ["squash", "merge", "rebase"] as const) {
          const refused = await client
            .request("worktree/merge", { threadId: wt.threadId, strategy })
            .catch((e: { code: string; data: unknown }) => e);
          expect(refused).toMatchObject({ code: "worktreeConflict", data: { files: ["shared.txt"] } });
        }
        expect({
          main: gitSync(agent.cwd, "rev-parse", "main"),
          branch: gitSync(wt.path, "rev-parse", "HEAD"),
          mainStatus: gitSync(agent.cwd, "status", "--porcelain"),
          wtStatus: gitSync(wt.path, "status", "--porcelain"),
        }).toEqual(before);
        expect(readFileSync(join(wt.path, "shared.txt"), "utf8")).toBe("worktree's line\n");
      },
      E2E_TIMEOUT,
    );

    test(
      "worktree/merge and worktree/remove refuse with turnInProgress while a turn runs",
      async () => {
        await using server = await target.start();
        const { client, agent } = server;
        initRepo(agent.cwd);
        const wt = await inWorktree(client, agent.cwd, "busy", "ask");
        const held = await turnHeldAtApproval(server, wt.threadId);
        expect(
          await errorCode(client.request("worktree/merge", { threadId: wt.threadId, strategy: "squash" })),
        ).toBe("turnInProgress");
        expect(
          await errorCode(client.request("worktree/remove", { threadId: wt.threadId, force: true })),
        ).toBe("turnInProgress");
        held.answer({ decision: "decline" });
        await held.completed;
        expect(existsSync(wt.path)).toBe(true);
      },
      E2E_TIMEOUT,
    );

    test(
      "worktree/remove refuses a dirty worktree without force (invalidParams), keeps a restorable snapshot with force, and worktree/list shows the owned worktrees",
      async () => {
        await using server = await target.start();
        const { client, agent } = server;
        initRepo(agent.cwd);
        const wt = await inWorktree(client, agent.cwd, "keepme");
        const other = await inWorktree(client, agent.cwd, "other");
        writeFiles(wt.path, { "shared.txt": "changed\n", "untracked.txt": "new\n" });

        const listed = await client.request("worktree/list", { cwd: agent.cwd });
        expect(listed.worktrees.map((w) => [w.name, w.dirty, w.unmerged, w.threadId]).sort()).toEqual([
          ["keepme", true, false, wt.threadId],
          ["other", false, false, other.threadId],
        ]);
        expect(listed.worktrees.every((w) => w.sizeBytes > 0 && w.stale === false)).toBe(true);

        const refused = await client
          .request("worktree/remove", { threadId: wt.threadId })
          .catch((e: { code: string; data: { reason: string } }) => e);
        expect(refused).toMatchObject({ code: "invalidParams", data: { reason: "dirtyWorktree" } });
        expect(existsSync(join(wt.path, "untracked.txt"))).toBe(true);

        const removed = await client.request("worktree/remove", { threadId: wt.threadId, force: true });
        expect(removed.snapshotRef).toBe("refs/knightcode/snapshots/keepme");
        expect(existsSync(wt.path)).toBe(false);
        expect(gitSync(agent.cwd, "show", `${removed.snapshotRef}:untracked.txt`)).toBe("new\n");
        expect(gitSync(agent.cwd, "show", `${removed.snapshotRef}:shared.txt`)).toBe("changed\n");
        expect((await client.request("worktree/list", {})).worktrees.map((w) => w.name)).toEqual(["other"]);

        // a resume restores the worktree from the snapshot, the work uncommitted again
        await client.request("thread/unsubscribe", { threadId: wt.threadId });
        const resumed = await client.request("thread/resume", { threadId: wt.threadId });
        expect(resumed.thread.worktree?.path).toBe(wt.path);
        expect(readFileSync(join(wt.path, "untracked.txt"), "utf8")).toBe("new\n");
        expect(readFileSync(join(wt.path, "shared.txt"), "utf8")).toBe("changed\n");
        expect(gitSync(wt.path, "status", "--porcelain").split("\n").filter(Boolean).sort()).toEqual([
          " M shared.txt",
          "?? untracked.txt",
        ]);
        // the main checkout was never touched
        expect(gitSync(agent.cwd, "status", "--porcelain")).toBe("");
      },
      E2E_TIMEOUT,
    );
  });
}
