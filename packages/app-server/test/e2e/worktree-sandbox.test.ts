/**
 * A worktree thread in the bubblewrap sandbox, end to end (real bubblewrap, real git):
 * its git reaches the main repository's common git dir, so `git status` and `git commit`
 * work on its own branch, while the hooks, the config, the ownership record, the user's
 * branches and another worktree's branch stay out of its reach.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { E2E_TIMEOUT, MOCK_MODEL } from "./harness.ts";
import { bash, startServer } from "./sandbox-support.ts";
import { gitSync, initRepo } from "./worktree-support.ts";

const startWorktreeThread = async (server: Awaited<ReturnType<typeof startServer>>, name: string) =>
  server.client.request("thread/start", {
    cwd: server.agent.cwd,
    approvalMode: "fullAccess",
    model: MOCK_MODEL,
    worktree: { name },
  });

describe("sandboxed worktree thread", () => {
  test(
    "git status and git commit work in the worktree and land on its branch; the main checkout is untouched",
    async () => {
      await using server = await startServer();
      initRepo(server.agent.cwd);
      const mainBefore = gitSync(server.agent.cwd, "rev-parse", "main").trim();
      const { thread } = await startWorktreeThread(server, "boxed");
      expect(thread.sandbox?.mode).toBe("bubblewrap");
      const out = await bash(
        server,
        thread.id,
        "echo four >> shared.txt && git status --short && git commit -qam 'from the sandbox' && git log --format=%s -1",
      );
      expect(out).toContain("M shared.txt");
      expect(out).toContain("from the sandbox");
      expect(gitSync(server.agent.cwd, "log", "--format=%s", "-1", "knightcode/boxed").trim()).toBe(
        "from the sandbox",
      );
      expect(gitSync(server.agent.cwd, "rev-parse", "main").trim()).toBe(mainBefore);
      expect(readFileSync(join(server.agent.cwd, "shared.txt"), "utf8")).toBe("one\ntwo\nthree\n");
      expect(gitSync(thread.worktree!.path, "status", "--porcelain")).toBe("");
    },
    E2E_TIMEOUT,
  );

  test(
    "hooks, config, the ownership record, the user's branch and another worktree's branch cannot be changed from inside",
    async () => {
      await using server = await startServer();
      initRepo(server.agent.cwd);
      const common = join(server.agent.cwd, ".git");
      const other = await startWorktreeThread(server, "other");
      const { thread } = await startWorktreeThread(server, "attacker");
      const record = join(common, "worktrees", "attacker", "knightcode-owner.json");
      const recordBefore = readFileSync(record, "utf8");
      const configBefore = readFileSync(join(common, "config"), "utf8");
      const mainBefore = gitSync(server.agent.cwd, "rev-parse", "main").trim();
      const otherBefore = gitSync(server.agent.cwd, "rev-parse", "knightcode/other").trim();
      const attempts = [
        `echo 'touch /tmp/pwned' > '${common}/hooks/pre-commit' && echo HOOK-WRITTEN`,
        `git config core.fsmonitor 'touch /tmp/pwned' && echo CONFIG-WRITTEN`,
        `git config --worktree core.fsmonitor 'touch /tmp/pwned' && echo WTCONFIG-WRITTEN`,
        `echo '{}' > '${record}' && echo RECORD-WRITTEN`,
        "git commit -q --allow-empty -m x && git update-ref refs/heads/main HEAD && echo MAIN-MOVED",
        "git update-ref refs/heads/knightcode/other HEAD && echo OTHER-MOVED",
      ];
      const out = await bash(server, thread.id, attempts.map((a) => `(${a}) 2>&1`).join("; "));
      // each attempt prints its marker only when it succeeded
      expect(out).not.toMatch(/[A-Z]+-(WRITTEN|MOVED)/);
      expect(out).toContain("Read-only file system");
      expect(existsSync(join(common, "hooks", "pre-commit"))).toBe(false);
      expect(readFileSync(join(common, "config"), "utf8")).toBe(configBefore);
      expect(readFileSync(join(common, "worktrees", "attacker", "config.worktree"), "utf8")).toBe("");
      expect(readFileSync(record, "utf8")).toBe(recordBefore);
      expect(gitSync(server.agent.cwd, "rev-parse", "main").trim()).toBe(mainBefore);
      expect(gitSync(server.agent.cwd, "rev-parse", "knightcode/other").trim()).toBe(otherBefore);
      // its own branch did take the commit
      expect(gitSync(server.agent.cwd, "log", "--format=%s", "-1", "knightcode/attacker").trim()).toBe("x");
      expect(other.thread.worktree?.branch).toBe("knightcode/other");
    },
    E2E_TIMEOUT,
  );
});
