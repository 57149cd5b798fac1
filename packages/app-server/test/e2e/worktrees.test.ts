/**
 * Server-owned worktrees end to end, over a real app-server (child and in-process) and
 * real git repositories in temp dirs: threads in worktrees of one repository, turn diffs,
 * `thread/diff` against turn start, base and remote, and start-time refusals.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ThreadReplacedNotification, ThreadStartResult } from "@knightcode/app-server-protocol";
import { E2E_TIMEOUT, errorCode, MOCK_MODEL, nextNotification, TARGETS } from "./harness.ts";
import {
  addOrigin,
  commitAll,
  gitSync,
  initRepo,
  turnWithDiffs,
  watchDiffs,
  writeByMarker,
  writeFiles,
  writeThenDone,
} from "./worktree-support.ts";

for (const target of TARGETS) {
  describe(`[${target.name}] worktrees`, () => {
    test(
      "two threads in worktrees of one repository edit the same file in concurrent turns; the main checkout and each other stay untouched; the last turn/diff/updated is git's diff of the turn",
      async () => {
        await using server = await target.start();
        const { client, agent } = server;
        initRepo(agent.cwd);
        const start = (name: string) =>
          client.request("thread/start", {
            cwd: agent.cwd,
            model: MOCK_MODEL,
            approvalMode: "fullAccess",
            worktree: { name },
          });
        const [a, b] = await Promise.all([start("alpha"), start("beta")]);
        for (const [started, name] of [
          [a, "alpha"],
          [b, "beta"],
        ] as const) {
          const w = started.thread.worktree!;
          expect(w).toMatchObject({
            name,
            branch: `knightcode/${name}`,
            baseRef: "HEAD",
            sourceBranch: "main",
          });
          expect(w.path).toBe(
            join(realpathSync(agent.agentDir), "worktrees", w.path.split("/").at(-2)!, name),
          );
          expect(w.repository).toBe(realpathSync(agent.cwd));
          expect(w.baseCommit).toBe(gitSync(agent.cwd, "rev-parse", "HEAD").trim());
          expect(started.thread.cwd).toBe(w.path);
          expect(started.worktreeStart).toEqual({ sourceDirty: false, copied: [] });
        }
        // the two turns' requests arrive in any order: each is answered by its prompt's marker;
        // each reply waits for its thread's first diff, so that diff comes during the turn
        const watchA = watchDiffs(client, a.thread.id);
        const watchB = watchDiffs(client, b.thread.id);
        const byMarker = writeByMarker({
          "agent-alpha": ["shared.txt", "alpha\n", watchA.first],
          "agent-beta": ["shared.txt", "beta\n", watchB.first],
        });
        server.mock.enqueue(byMarker, byMarker, byMarker, byMarker);
        const [ta, tb] = await Promise.all([
          turnWithDiffs(client, a.thread.id, "agent-alpha: write it", watchA),
          turnWithDiffs(client, b.thread.id, "agent-beta: write it", watchB),
        ]);
        expect(ta.completed.turn.status).toBe("completed");
        expect(tb.completed.turn.status).toBe("completed");
        const pathA = a.thread.worktree!.path;
        const pathB = b.thread.worktree!.path;
        expect(readFileSync(join(pathA, "shared.txt"), "utf8")).toBe("alpha\n");
        expect(readFileSync(join(pathB, "shared.txt"), "utf8")).toBe("beta\n");
        expect(readFileSync(join(agent.cwd, "shared.txt"), "utf8")).toBe("one\ntwo\nthree\n");
        expect(gitSync(agent.cwd, "status", "--porcelain")).toBe("");
        // a diff arrived during each turn, and the last one is git's diff of the turn
        expect(watchA.duringTurn).toBeGreaterThan(0);
        expect(watchB.duringTurn).toBeGreaterThan(0);
        await watchA.arrives(() => gitSync(pathA, "diff"));
        await watchB.arrives(() => gitSync(pathB, "diff"));
        expect(watchA.diffs.at(-1)).toBe(gitSync(pathA, "diff"));
        expect(watchB.diffs.at(-1)).toBe(gitSync(pathB, "diff"));
        expect(watchA.diffs.at(-1)).toContain("+alpha");
        // thread/read and thread/list carry the worktree
        const read = await client.request("thread/read", { threadId: a.thread.id });
        expect(read.thread.worktree).toEqual(a.thread.worktree);
        const list = await client.request("thread/list", {});
        const row = list.threads.find((t) => t.id === b.thread.id);
        expect(row?.worktree).toEqual(b.thread.worktree);
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/diff against the turn start, the base and the remote: untracked files in, binary files named",
      async () => {
        await using server = await target.start();
        const { client, agent } = server;
        initRepo(agent.cwd);
        addOrigin(agent.cwd, join(agent.root, "origin.git"));
        // a commit of main that no remote has: the remote diff includes it, the base diff not
        writeFiles(agent.cwd, { "local.txt": "not pushed\n" });
        commitAll(agent.cwd, "local only");
        const started = await client.request("thread/start", {
          cwd: agent.cwd,
          model: MOCK_MODEL,
          approvalMode: "fullAccess",
          worktree: { name: "diffs" },
        });
        const threadId = started.thread.id;
        const path = started.thread.worktree!.path;
        writeFiles(path, { "before-turn.txt": "made before the turn\n" });
        server.mock.enqueue(
          writeThenDone("agent-d", "new.txt", "fresh\n"),
          writeThenDone("agent-d", "new.txt", "fresh\n"),
        );
        await turnWithDiffs(client, threadId, "agent-d: write new.txt");
        writeFileSync(join(path, "blob.bin"), Buffer.from([0, 1, 2, 3, 0, 255]));

        const turn = await client.request("thread/diff", { threadId, against: "turnStart" });
        expect(turn.files.map((f) => f.path).sort()).toEqual(["blob.bin", "new.txt"]);
        expect(turn.files.find((f) => f.path === "new.txt")).toEqual({
          path: "new.txt",
          kind: "add",
          additions: 1,
          deletions: 0,
        });
        expect(turn.files.find((f) => f.path === "blob.bin")).toMatchObject({ kind: "add", binary: true });
        expect(turn.diff).toContain("Binary files /dev/null and b/blob.bin differ");
        expect(turn.truncated).toBe(false);

        const base = await client.request("thread/diff", { threadId, against: "base" });
        expect(base.files.map((f) => f.path).sort()).toEqual(["before-turn.txt", "blob.bin", "new.txt"]);
        expect(base.from).toBe(
          gitSync(path, "rev-parse", `${started.thread.worktree!.baseCommit}^{tree}`).trim(),
        );

        const remote = await client.request("thread/diff", { threadId, against: "remote" });
        expect(remote.files.map((f) => f.path).sort()).toEqual([
          "before-turn.txt",
          "blob.bin",
          "local.txt",
          "new.txt",
        ]);
        expect(remote.from).toBe(gitSync(path, "rev-parse", "origin/main^{tree}").trim());
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/fork and /new of a thread in a worktree stay in that worktree",
      async () => {
        await using server = await target.start();
        const { client, agent } = server;
        initRepo(agent.cwd);
        const started = await client.request("thread/start", {
          cwd: agent.cwd,
          model: MOCK_MODEL,
          worktree: { name: "shared" },
        });
        const forked = await client.request("thread/fork", { threadId: started.thread.id });
        expect(forked.thread.worktree).toEqual(started.thread.worktree);
        expect(forked.thread.cwd).toBe(started.thread.cwd);
        const replaced = nextNotification<ThreadReplacedNotification>(
          client,
          "thread/replaced",
          (p) => p.oldThreadId === started.thread.id,
        );
        await client.request("turn/start", { threadId: started.thread.id, text: "/new" });
        const fresh = (await replaced).thread;
        expect(fresh.worktree).toEqual(started.thread.worktree);
        expect(fresh.cwd).toBe(started.thread.cwd);
        // one worktree, still owned by the thread that made it
        const listed = await client.request("worktree/list", {});
        expect(listed.worktrees.map((w) => [w.name, w.threadId])).toEqual([["shared", started.thread.id]]);
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/start worktree refusals (invalidParams: notGitRepository, invalid name, unknownBaseRef, worktreeExists), worktree/merge noWorktree, thread/diff noTurn and noRemote; thread/diff, worktree/merge and worktree/remove threadNotFound; nothing changes",
      async () => {
        await using server = await target.start();
        const { client, agent } = server;
        // not a repository yet
        const outside = await client
          .request("thread/start", { cwd: agent.cwd, model: MOCK_MODEL, worktree: {} })
          .catch((e: { code: string; data: { reason: string } }) => e);
        expect(outside).toMatchObject({ code: "invalidParams", data: { reason: "notGitRepository" } });
        initRepo(agent.cwd);
        expect(
          await errorCode(
            client.request("thread/start", {
              cwd: agent.cwd,
              model: MOCK_MODEL,
              worktree: { name: "Bad Name" },
            }),
          ),
        ).toBe("invalidParams");
        const unknownBase = await client
          .request("thread/start", {
            cwd: agent.cwd,
            model: MOCK_MODEL,
            worktree: { baseRef: "no-such-ref" },
          })
          .catch((e: { code: string; data: { reason: string } }) => e);
        expect(unknownBase).toMatchObject({ code: "invalidParams", data: { reason: "unknownBaseRef" } });
        const first: ThreadStartResult = await client.request("thread/start", {
          cwd: agent.cwd,
          model: MOCK_MODEL,
          worktree: { name: "taken" },
        });
        const again = await client
          .request("thread/start", { cwd: agent.cwd, model: MOCK_MODEL, worktree: { name: "taken" } })
          .catch((e: { code: string; data: { reason: string } }) => e);
        expect(again).toMatchObject({ code: "invalidParams", data: { reason: "worktreeExists" } });
        expect(gitSync(agent.cwd, "worktree", "list").trim().split("\n")).toHaveLength(2);
        expect(existsSync(first.thread.worktree!.path)).toBe(true);
        // a plain thread has no worktree to merge; turnStart needs a turn; remote needs a remote
        const plain = await client.request("thread/start", { cwd: agent.cwd, model: MOCK_MODEL });
        const merge = await client
          .request("worktree/merge", { threadId: plain.thread.id, strategy: "squash" })
          .catch((e: { code: string; data: { reason: string } }) => e);
        expect(merge).toMatchObject({ code: "invalidParams", data: { reason: "noWorktree" } });
        const noTurn = await client
          .request("thread/diff", { threadId: plain.thread.id, against: "turnStart" })
          .catch((e: { code: string; data: { reason: string } }) => e);
        expect(noTurn).toMatchObject({ code: "invalidParams", data: { reason: "noTurn" } });
        const noRemote = await client
          .request("thread/diff", { threadId: plain.thread.id, against: "remote" })
          .catch((e: { code: string; data: { reason: string } }) => e);
        expect(noRemote).toMatchObject({ code: "invalidParams", data: { reason: "noRemote" } });
        expect(await errorCode(client.request("thread/diff", { threadId: "nope", against: "base" }))).toBe(
          "threadNotFound",
        );
        expect(
          await errorCode(client.request("worktree/merge", { threadId: "nope", strategy: "merge" })),
        ).toBe("threadNotFound");
        expect(await errorCode(client.request("worktree/remove", { threadId: "nope" }))).toBe(
          "threadNotFound",
        );
      },
      E2E_TIMEOUT,
    );
  });
}
