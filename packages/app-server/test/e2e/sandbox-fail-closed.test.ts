import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { E2E_TIMEOUT } from "./harness.ts";
import { runTools, startServer, startThread } from "./sandbox-support.ts";

/** A folder of links to the named executables, for a PATH that lacks everything else. */
function tempBin(tools: string[]): { path: string } & AsyncDisposable {
  const path = mkdtempSync(join(tmpdir(), "knightcode-bin-"));
  for (const tool of tools) {
    const target = Bun.which(tool);
    if (target) symlinkSync(target, join(path, tool));
  }
  return { path, [Symbol.asyncDispose]: async () => rmSync(path, { recursive: true, force: true }) };
}

describe("--sandbox fails closed", () => {
  test(
    "with bwrap missing from PATH, thread/start warns and every tool fails with bwrapMissing; nothing runs on the host",
    async () => {
      // A PATH with a shell and the usual tools but no bwrap.
      await using bin = tempBin(["bash", "sh", "touch", "rg", "fdfind"]);
      await using server = await startServer({ env: { PATH: bin.path } });
      const project = server.agent.cwd;
      const { thread, warnings } = await startThread(server, project);
      expect(thread.sandbox).toEqual({ mode: "unavailable", network: "off" });
      const warning = warnings.find((w) => w.source === "sandbox");
      expect(warning?.message).toContain("Sandbox unavailable (bwrapMissing)");
      expect(warning?.message).toContain("Install bubblewrap");

      const items = await runTools(server, thread.id, [
        { id: "c_bash", name: "bash", arguments: { command: "touch ran-on-host.txt" } },
        { id: "c_write", name: "write", arguments: { path: "written-on-host.txt", content: "x" } },
        { id: "c_read", name: "read", arguments: { path: "anything.txt" } },
        { id: "c_ls", name: "ls", arguments: {} },
        { id: "c_grep", name: "grep", arguments: { pattern: "x" } },
        { id: "c_find", name: "find", arguments: { pattern: "*" } },
      ]);
      for (const id of ["c_bash", "c_write", "c_read", "c_ls", "c_grep", "c_find"]) {
        expect([id, items[id]?.status]).toEqual([id, "failed"]);
        expect(items[id]?.output).toContain("Sandbox unavailable (bwrapMissing)");
      }
      expect(existsSync(join(project, "ran-on-host.txt"))).toBe(false);
      expect(existsSync(join(project, "written-on-host.txt"))).toBe(false);
    },
    E2E_TIMEOUT,
  );

  test(
    "a global setting that would show / over the private mounts is refused: thread/start warns unsafeMounts and every tool fails with it",
    async () => {
      await using server = await startServer();
      const project = server.agent.cwd;
      writeFileSync(
        join(server.agent.agentDir, "settings.json"),
        JSON.stringify({ sandbox: { extraReadable: ["/"] } }),
      );
      const { thread, warnings } = await startThread(server, project);
      expect(thread.sandbox).toEqual({ mode: "unavailable", network: "off" });
      const warning = warnings.find((w) => w.source === "sandbox");
      expect(warning?.message).toStartWith(
        "Sandbox unavailable (unsafeMounts): the sandbox's mounts were refused: `--ro-bind-try / /` would show the host's files over the private `--dev /dev`.",
      );
      const items = await runTools(server, thread.id, [
        { id: "c_bash", name: "bash", arguments: { command: "touch ran-on-host.txt" } },
        { id: "c_read", name: "read", arguments: { path: join(server.home, ".ssh", "id_rsa") } },
      ]);
      for (const id of ["c_bash", "c_read"]) {
        expect([id, items[id]?.status]).toEqual([id, "failed"]);
        expect(items[id]?.output).toContain("Sandbox unavailable (unsafeMounts)");
      }
      expect(existsSync(join(project, "ran-on-host.txt"))).toBe(false);
    },
    E2E_TIMEOUT,
  );
});
