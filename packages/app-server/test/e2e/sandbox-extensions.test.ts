import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { E2E_TIMEOUT } from "./harness.ts";
import { leaked, runTools, startServer, startThread } from "./sandbox-support.ts";

const PROBE = join(import.meta.dir, "fixtures", "extensions", "sandbox-probe.ts");

describe("extensions and the sandbox", () => {
  test(
    "an extension tool using ctx.toolOperations() and exec runs inside the thread's sandbox, without credentials",
    async () => {
      await using server = await startServer({ args: ["--sandbox", "-e", PROBE] });
      const { thread } = await startThread(server, server.agent.cwd);
      const items = await runTools(server, thread.id, [
        { id: "p", name: "probe", arguments: { path: join(server.home, ".ssh", "id_rsa") } },
      ]);
      const output = items.p?.output ?? "";
      expect(output).toContain("read failed: ENOENT");
      expect(output).toContain("--- ops env\n");
      expect(output).toContain("PATH=");
      // exec ran in the sandbox's UTS namespace
      expect(output).toContain("knightcode-sandbox");
      expect(leaked(output)).toEqual([]);
    },
    E2E_TIMEOUT,
  );

  test(
    "without the sandbox, exec still gets the environment without credentials",
    async () => {
      await using server = await startServer({ args: ["-e", PROBE] });
      const { thread } = await startThread(server, server.agent.cwd);
      const items = await runTools(server, thread.id, [
        { id: "p", name: "probe", arguments: { path: join(server.agent.cwd, "missing.txt") } },
      ]);
      const output = items.p?.output ?? "";
      expect(output).toContain("--- exec\n");
      expect(output).toContain("PATH=");
      expect(leaked(output)).toEqual([]);
    },
    E2E_TIMEOUT,
  );
});
