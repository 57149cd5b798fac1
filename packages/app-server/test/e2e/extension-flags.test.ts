/**
 * Extension flags on `knightcode app-server`: flags the command line kept for the
 * extensions reach pi's own plan-mode example through `getFlag`, every thread's start,
 * fork and resume result lists the registered flags with their values, and a flag no
 * extension registers (or one given a value of the wrong form) is a warning of each
 * thread's start when some extension loads for every thread.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { AppServerClient, Warning } from "@knightcode/app-server-protocol";
import { E2E_TIMEOUT, MOCK_MODEL, PI_EXAMPLES, TARGETS } from "./harness.ts";

const PLAN_MODE = join(PI_EXAMPLES, "plan-mode");
/** Our example that registers a tool and no flag. */
const HELLO_TOOL = join(import.meta.dir, "..", "..", "..", "..", "examples", "extensions", "hello-tool.ts");
const stdio = TARGETS.find((t) => t.name === "stdio")!;

function start(client: AppServerClient, cwd: string) {
  return client.request("thread/start", { cwd, approvalMode: "fullAccess", model: MOCK_MODEL });
}

const flagWarnings = (warnings: Warning[]) =>
  warnings.filter((w) => w.message.startsWith("Extension flags:"));

describe("extension flags on knightcode app-server", () => {
  test(
    "start, fork and resume results list the registered flag with the passed value",
    async () => {
      await using server = await stdio.start({ extensions: [PLAN_MODE], args: ["--plan"] });
      const started = await start(server.client, server.agent.cwd);
      expect(flagWarnings(started.warnings)).toEqual([]);
      const plan = {
        name: "plan",
        type: "boolean" as const,
        description: "Start in plan mode (read-only exploration)",
        path: join(PLAN_MODE, "index.ts"),
        value: true,
      };
      expect(started.extensionFlags).toEqual([plan]);
      const forked = await server.client.request("thread/fork", { threadId: started.thread.id });
      expect(forked.extensionFlags).toEqual([plan]);
      const resumed = await server.client.request("thread/resume", { threadId: started.thread.id });
      expect(resumed.extensionFlags).toEqual([plan]);
    },
    E2E_TIMEOUT,
  );

  test(
    "a flag no extension registers and a boolean given a value are warnings of each thread's start",
    async () => {
      await using server = await stdio.start({
        extensions: [PLAN_MODE],
        args: ["--frobnicate", "--plan=yes", "--persona", "pirate"],
      });
      for (let i = 0; i < 2; i++) {
        const started = await start(server.client, server.agent.cwd);
        expect(flagWarnings(started.warnings)).toEqual([
          { source: "extension", message: "Extension flags: unknown option '--frobnicate'" },
          { source: "extension", message: "Extension flags: --plan takes no value" },
          { source: "extension", message: "Extension flags: unknown option '--persona=pirate'" },
        ]);
        // the refused value leaves the default
        expect(started.extensionFlags?.map((f) => f.value)).toEqual([false]);
      }
    },
    E2E_TIMEOUT,
  );

  test(
    "a settings extension that registers no flag: the result has no extensionFlags, and an unknown flag warns",
    async () => {
      // with no extension anywhere the flag would be a usage error (apps/cli/test/server-usage.test.ts)
      await using server = await stdio.start({
        settings: { extensions: [HELLO_TOOL] },
        args: ["--frobnicate"],
      });
      const started = await start(server.client, server.agent.cwd);
      expect(started.extensionFlags).toBeUndefined();
      expect(flagWarnings(started.warnings).map((w) => w.message)).toEqual([
        "Extension flags: unknown option '--frobnicate'",
      ]);
    },
    E2E_TIMEOUT,
  );
});
