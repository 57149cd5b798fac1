/**
 * `command/list` for a cwd builds a session in memory and never binds it: no session
 * file, no lock, no listing index, nothing else written anywhere under the agent dir
 * or the project.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { E2E_TIMEOUT, TARGETS } from "./harness.ts";

/** Every path below `root` with its size and modification time. */
function snapshot(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const info = statSync(path);
      out.push(`${path} ${entry.isDirectory() ? "dir" : info.size} ${info.mtimeMs}`);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(root);
  return out.sort();
}

for (const target of TARGETS) {
  describe(`[${target.name}] command/list`, () => {
    test(
      "command/list for a cwd lists the project's commands and writes nothing: no session file, no lock, no index",
      async () => {
        await using server = await target.start();
        const { agentDir, cwd, root } = server.agent;
        mkdirSync(join(agentDir, "prompts"), { recursive: true });
        writeFileSync(
          join(agentDir, "prompts", "review.md"),
          "---\ndescription: Review the diff\n---\nReview it.\n",
        );
        // the host has loaded once this answers, so whatever start-up writes is done
        await server.client.request("model/list", {});
        const before = snapshot(root);
        const { commands } = await server.client.request("command/list", { cwd });
        expect(commands.some((c) => c.name === "review")).toBe(true);
        expect((await server.client.request("server/diagnostics", {})).loadedThreads).toBe(0);
        expect(snapshot(root)).toEqual(before);
        const written = before.filter((line) => /\.(jsonl|lock)\s|thread-index/.test(line));
        expect(written).toEqual([]);
      },
      E2E_TIMEOUT,
    );
  });
}
