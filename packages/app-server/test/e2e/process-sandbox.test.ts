import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { knightcodeArgv, mockModelsJson } from "@knightcode/testkit";
import { E2E_TIMEOUT } from "./harness.ts";
import { leaked, runTools, SYSTEM_PROBE, startServer, startThread } from "./sandbox-support.ts";

afterAll(() => rmSync(SYSTEM_PROBE, { force: true }));

describe("knightcode --sandbox=process", () => {
  test(
    "the whole server runs in bubblewrap: project and a private agent dir writable, home, real agent dir and the rest out of reach",
    async () => {
      await using server = await startServer({ args: ["--sandbox=process"] });
      // The sandboxed server keeps its own agent dir under the (real) HOME; it gets the mock model there.
      const privateAgentDir = join(server.home, ".knightcode", "process-sandbox", "agent");
      writeFileSync(join(privateAgentDir, "models.json"), JSON.stringify(mockModelsJson(server.mock)));
      const project = server.agent.cwd;
      const { thread } = await startThread(server, project);
      expect(thread.sandbox).toEqual({ mode: "process", network: "on" });
      expect(thread.path?.startsWith(privateAgentDir)).toBe(true);
      const probe = SYSTEM_PROBE;
      const items = await runTools(server, thread.id, [
        { id: "ssh", name: "read", arguments: { path: "~/.ssh/id_rsa" } },
        { id: "agent", name: "ls", arguments: { path: server.agent.agentDir } },
        { id: "outside", name: "write", arguments: { path: probe, content: "x" } },
        { id: "inside", name: "write", arguments: { path: "made-inside.txt", content: "hello" } },
        { id: "env", name: "bash", arguments: { command: 'echo "key=[$ANTHROPIC_API_KEY]"; env' } },
      ]);
      expect(items.ssh?.status).toBe("failed");
      expect(items.agent?.status).toBe("failed");
      expect(items.outside?.status).toBe("failed");
      expect(existsSync(probe)).toBe(false);
      expect(readFileSync(join(project, "made-inside.txt"), "utf8")).toBe("hello");
      expect(items.env?.output).toContain("key=[]");
      expect(leaked(JSON.stringify(items))).toEqual([]);
    },
    E2E_TIMEOUT,
  );

  test(
    "with bwrap missing from PATH it refuses to start, naming the cause and the fix",
    async () => {
      const bin = mkdtempSync(join(tmpdir(), "knightcode-bin-"));
      try {
        symlinkSync(Bun.which("sh")!, join(bin, "sh"));
        const child = Bun.spawn(knightcodeArgv(["app-server", "--sandbox=process"]), {
          env: { ...process.env, PATH: bin },
          stdin: "pipe",
          stdout: "pipe",
          stderr: "pipe",
        });
        const stderr = await new Response(child.stderr).text();
        expect(await child.exited).toBe(1);
        expect(stderr).toContain("--sandbox=process: Sandbox unavailable (bwrapMissing)");
        expect(stderr).toContain("Install bubblewrap");
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    },
    E2E_TIMEOUT,
  );
});
