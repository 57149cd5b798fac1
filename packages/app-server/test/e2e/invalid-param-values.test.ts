/**
 * Param values the schema's types allow but the runtime would reject deep inside a
 * handler (beyond NUL bytes in paths, see path-params.test.ts): each answers
 * `invalidParams` before anything runs or is written, and the connection keeps serving.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { NO_NUL_PATTERN_MESSAGE } from "@knightcode/app-server-protocol";
import { MAX_SETTINGS_VALUE_DEPTH } from "@knightcode/config";
import { E2E_TIMEOUT, MOCK_MODEL, TARGETS } from "./harness.ts";

type WireError = { code: string; message: string; data?: unknown };

async function refusal(promise: Promise<unknown>): Promise<WireError> {
  try {
    await promise;
  } catch (error) {
    return error as WireError;
  }
  throw new Error("expected the request to fail");
}

/** An object nested `depth` levels deep: `{"a":{"a":…{}}}`. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

for (const target of TARGETS) {
  describe(`[${target.name}] param values the runtime would reject`, () => {
    test(
      "thread/shell/run: a NUL byte in the command is invalidParams at /command, and nothing runs",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const { thread } = await client.request("thread/start", { cwd: server.agent.cwd, model: MOCK_MODEL });
        const error = await refusal(
          client.request("thread/shell/run", { threadId: thread.id, command: "touch ran\u0000x" }),
        );
        expect(error.code).toBe("invalidParams");
        expect((error.data as { errors: unknown[] }).errors).toContainEqual({
          path: "/command",
          message: NO_NUL_PATTERN_MESSAGE,
        });
        expect(existsSync(join(server.agent.cwd, "ran"))).toBe(false);
        // the thread and the connection keep serving; nothing was recorded for the refused run
        const ok = await client.request("thread/shell/run", { threadId: thread.id, command: "echo fine" });
        expect(ok.output).toBe("fine");
        const read = await client.request("thread/read", { threadId: thread.id });
        expect(JSON.stringify(read)).not.toContain("touch ran");
      },
      E2E_TIMEOUT,
    );

    test(
      `config/write: a value nested deeper than ${MAX_SETTINGS_VALUE_DEPTH} levels is invalidParams (invalidValue) and the file is untouched`,
      async () => {
        await using server = await target.start();
        const { client } = server;
        const settingsPath = join(server.agent.agentDir, "settings.json");
        const before = existsSync(settingsPath) ? readFileSync(settingsPath, "utf8") : undefined;
        // one level over the bound, and one deep enough to have wedged the server (a
        // pretty-printed file quadratic in the depth)
        for (const depth of [MAX_SETTINGS_VALUE_DEPTH + 1, 20_000]) {
          const error = await refusal(
            client.request("config/write", { scope: "global", key: "deep", value: nested(depth) }),
          );
          expect(error.code).toBe("invalidParams");
          expect(error.data).toEqual({ reason: "invalidValue" });
          expect(error.message).toContain(`deeper than ${MAX_SETTINGS_VALUE_DEPTH} levels`);
        }
        const after = existsSync(settingsPath) ? readFileSync(settingsPath, "utf8") : undefined;
        expect(after).toBe(before);
        // at the bound the value is written and reads back
        await client.request("config/write", {
          scope: "global",
          key: "deep",
          value: nested(MAX_SETTINGS_VALUE_DEPTH),
        });
        const read = await client.request("config/read", {});
        expect(read.settings.deep).toEqual(nested(MAX_SETTINGS_VALUE_DEPTH));
      },
      E2E_TIMEOUT,
    );
  });
}
