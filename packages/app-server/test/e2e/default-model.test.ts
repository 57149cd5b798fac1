/**
 * A thread started without a model gets the global settings' `defaultProvider` and
 * `defaultModel`, read as that start reads its settings: editing `settings.json` between
 * two starts changes the second thread's model.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { MOCK_PROVIDERS } from "@knightcode/testkit";
import { E2E_TIMEOUT, MOCK_MODEL, TARGETS } from "./harness.ts";

for (const target of TARGETS) {
  describe(`[${target.name}] the default model`, () => {
    test(
      "comes from the global settings each thread/start reads",
      async () => {
        await using server = await target.start({
          settings: { defaultProvider: MOCK_MODEL.provider, defaultModel: MOCK_MODEL.id },
        });
        const start = async () =>
          (await server.client.request("thread/start", { cwd: server.agent.cwd })).thread.model;
        expect(await start()).toEqual(MOCK_MODEL);
        writeFileSync(
          join(server.agent.agentDir, "settings.json"),
          JSON.stringify({ defaultProvider: MOCK_PROVIDERS.anthropic, defaultModel: MOCK_MODEL.id }),
        );
        expect(await start()).toEqual({ provider: MOCK_PROVIDERS.anthropic, id: MOCK_MODEL.id });
      },
      E2E_TIMEOUT,
    );
  });
}
