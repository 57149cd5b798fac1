/**
 * What a new worktree gets and how one outlives its server, end to end: ignored files
 * listed in `.knightcode/worktreeinclude` are copied in, the trusted project's
 * `worktree.setup` runs in the worktree with its variables (a failure is a warning), and
 * a killed server's worktree is found and resumed by the next server on the same agent dir.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { E2E_TIMEOUT, MOCK_MODEL, TARGETS } from "./harness.ts";
import { commitAll, gitSync, initRepo, writeFiles } from "./worktree-support.ts";

for (const target of TARGETS) {
  describe(`[${target.name}] worktree provisioning`, () => {
    test(
      "thread/start with a worktree copies the ignored files .knightcode/worktreeinclude names and says the main checkout was dirty",
      async () => {
        await using server = await target.start();
        const { client, agent } = server;
        initRepo(agent.cwd, {
          ".gitignore": ".env\nnode_modules/\n*.log\n",
          ".knightcode/worktreeinclude": ".env\nconfig/*.local\n",
          "shared.txt": "one\n",
        });
        writeFiles(agent.cwd, {
          ".env": "SECRET=1\n",
          "config/dev.local": "local\n",
          "node_modules/big/index.js": "x\n",
          "debug.log": "noise\n",
          "shared.txt": "uncommitted\n",
        });
        const started = await client.request("thread/start", {
          cwd: agent.cwd,
          model: MOCK_MODEL,
          worktree: { name: "provisioned" },
        });
        const path = started.thread.worktree!.path;
        expect(started.worktreeStart?.sourceDirty).toBe(true);
        expect(started.worktreeStart?.copied.sort()).toEqual([".env", "config/dev.local"]);
        expect(readFileSync(join(path, ".env"), "utf8")).toBe("SECRET=1\n");
        expect(existsSync(join(path, "node_modules"))).toBe(false);
        expect(existsSync(join(path, "debug.log"))).toBe(false);
        // the worktree starts from the commit; the main checkout keeps its uncommitted change
        expect(readFileSync(join(path, "shared.txt"), "utf8")).toBe("one\n");
        expect(readFileSync(join(agent.cwd, "shared.txt"), "utf8")).toBe("uncommitted\n");
      },
      E2E_TIMEOUT,
    );

    test(
      "a trusted project's worktree.setup runs in the new worktree with KNIGHTCODE_WORKTREE and KNIGHTCODE_SOURCE_TREE; its failure is a warning; an untrusted project's is never run",
      async () => {
        await using server = await target.start();
        const { client, agent } = server;
        initRepo(agent.cwd, {
          ".knightcode/settings.json": JSON.stringify({
            worktree: {
              setup:
                'printf "%s|%s|%s" "$KNIGHTCODE_WORKTREE" "$KNIGHTCODE_SOURCE_TREE" "$PWD" > setup-ran.txt',
            },
          }),
        });
        // untrusted: not run
        const untrusted = await client.request("thread/start", {
          cwd: agent.cwd,
          model: MOCK_MODEL,
          worktree: { name: "untrusted" },
        });
        expect(existsSync(join(untrusted.thread.worktree!.path, "setup-ran.txt"))).toBe(false);

        await client.request("project/trust/set", { cwd: agent.cwd, trusted: true });
        const ok = await client.request("thread/start", {
          cwd: agent.cwd,
          model: MOCK_MODEL,
          worktree: { name: "setup-ok" },
        });
        const path = ok.thread.worktree!.path;
        expect(readFileSync(join(path, "setup-ran.txt"), "utf8")).toBe(
          `${path}|${ok.thread.worktree!.repository}|${path}`,
        );
        expect(ok.warnings.filter((w) => w.message.includes("setup"))).toEqual([]);

        writeFiles(agent.cwd, {
          ".knightcode/settings.json": JSON.stringify({
            worktree: { setup: "echo installing; echo broken >&2; exit 3" },
          }),
        });
        commitAll(agent.cwd, "a failing setup");
        const failed = await client.request("thread/start", {
          cwd: agent.cwd,
          model: MOCK_MODEL,
          worktree: { name: "setup-fails" },
        });
        const warning = failed.warnings.find((w) => w.message.includes("setup command"));
        expect(warning?.message).toContain("exited with 3");
        expect(warning?.message).toContain("broken");
        // the thread still works in its worktree, not in the main checkout
        expect(failed.thread.cwd).toBe(failed.thread.worktree!.path);
      },
      E2E_TIMEOUT,
    );

    if (target.name === "stdio") {
      test(
        "a killed server's worktree is found by the next server (worktree/list) and thread/resume reopens it, recreating a deleted folder from its branch",
        async () => {
          await using first = await target.start();
          initRepo(first.agent.cwd);
          const started = await first.client.request("thread/start", {
            cwd: first.agent.cwd,
            model: MOCK_MODEL,
            worktree: { name: "survivor" },
          });
          const { path } = started.thread.worktree!;
          writeFiles(path, { "work.txt": "committed work\n" });
          commitAll(path, "work");
          first.kill!("SIGKILL");
          await first.shutdown();

          await using second = await target.start({
            env: { KNIGHTCODE_CODING_AGENT_DIR: first.agent.agentDir },
          });
          const listed = await second.client.request("worktree/list", {});
          expect(listed.worktrees.map((w) => [w.name, w.threadId, w.unmerged, w.stale])).toEqual([
            ["survivor", started.thread.id, true, false],
          ]);
          rmSync(path, { recursive: true, force: true });
          const resumed = await second.client.request("thread/resume", { threadId: started.thread.id });
          expect(resumed.thread.worktree).toEqual(started.thread.worktree);
          expect(
            resumed.warnings.some((w) => w.message.includes("recreated from branch knightcode/survivor")),
          ).toBe(true);
          expect(readFileSync(join(path, "work.txt"), "utf8")).toBe("committed work\n");
          expect(gitSync(path, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe("knightcode/survivor");
        },
        E2E_TIMEOUT,
      );
    }
  });
}
