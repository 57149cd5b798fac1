/**
 * pi's `registerProvider`/`unregisterProvider` called after load (a setup command) take
 * effect at once, as pi documents: the models join `model/list` for every thread, a turn
 * runs on them, withdrawing removes them, a provider the registry cannot list is refused
 * with a subscriber warning, and `/reload` drops what only a command had registered. A
 * provider two threads registered stays until the last of them unloads.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type {
  AppServerClient,
  TurnCompletedNotification,
  WarningNotification,
} from "@knightcode/app-server-protocol";
import { textReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, nextNotification, startThread, TARGETS } from "./harness.ts";

const FIXTURE = join(import.meta.dir, "fixtures", "extensions", "late-provider.ts");

async function lateModels(client: AppServerClient, threadId: string): Promise<string[]> {
  const { models } = await client.request("model/list", { threadId });
  return models.filter((m) => m.provider.startsWith("late-")).map((m) => `${m.provider}/${m.id}`);
}

async function command(client: AppServerClient, threadId: string, text: string): Promise<void> {
  expect((await client.request("turn/start", { threadId, text })).status).toBe("handled");
}

for (const target of TARGETS) {
  describe(`[${target.name}] providers registered after load`, () => {
    test(
      "a setup command's provider is listed for every thread and serves turns; teardown withdraws it",
      async () => {
        await using server = await target.start({ extensions: [FIXTURE] });
        const start = async () => (await startThread(server.client, server.agent.cwd)).threadId;
        const threadId = await start();
        expect(await lateModels(server.client, threadId)).toEqual([]);

        await command(server.client, threadId, `/proxy-setup ${server.mock.baseUrl}`);
        expect(await lateModels(server.client, threadId)).toEqual(["late-proxy/late-relay"]);
        const other = await start();
        expect(await lateModels(server.client, other)).toEqual(["late-proxy/late-relay"]);

        await server.client.request("thread/settings/update", {
          threadId,
          model: { provider: "late-proxy", id: "late-relay" },
        });
        server.mock.enqueue(textReply("through the late proxy"));
        const done = nextNotification<TurnCompletedNotification>(
          server.client,
          "turn/completed",
          (p) => p.threadId === threadId,
        );
        await server.client.request("turn/start", { threadId, text: "hello" });
        expect((await done).turn.status).toBe("completed");
        const request = server.mock.requests.at(-1)!;
        expect(request.headers.authorization).toBe("Bearer late-proxy-key");
        expect((request.body as { model: string }).model).toBe("late-relay");

        await command(server.client, threadId, "/proxy-teardown");
        expect(await lateModels(server.client, threadId)).toEqual([]);
        expect(await lateModels(server.client, other)).toEqual([]);
      },
      E2E_TIMEOUT,
    );

    test(
      "a provider the registry cannot list is refused with a warning; /reload drops command-made providers",
      async () => {
        await using server = await target.start({ extensions: [FIXTURE] });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const warned = nextNotification<WarningNotification>(
          server.client,
          "warning",
          (p) => p.threadId === threadId && p.message.includes("late-broken"),
        );
        await command(server.client, threadId, "/proxy-broken");
        expect((await warned).message).toContain('Provider "late-broken" needs a baseUrl');
        expect(await lateModels(server.client, threadId)).toEqual([]);

        await command(server.client, threadId, `/proxy-setup ${server.mock.baseUrl}`);
        expect(await lateModels(server.client, threadId)).toEqual(["late-proxy/late-relay"]);
        await command(server.client, threadId, "/reload");
        expect(await lateModels(server.client, threadId)).toEqual([]);
      },
      E2E_TIMEOUT,
    );

    test(
      "a provider leaves when the last thread that registered it unloads, not before",
      async () => {
        await using server = await target.start({ extensions: [FIXTURE] });
        const start = async () => (await startThread(server.client, server.agent.cwd)).threadId;
        const [first, second, bystander] = [await start(), await start(), await start()];
        await command(server.client, first, `/proxy-setup ${server.mock.baseUrl}`);
        await command(server.client, second, `/proxy-setup ${server.mock.baseUrl}`);
        expect(await lateModels(server.client, bystander)).toEqual(["late-proxy/late-relay"]);

        // archiving unloads the thread (and its extensions)
        await server.client.request("thread/archive", { threadId: first });
        expect(await lateModels(server.client, bystander)).toEqual(["late-proxy/late-relay"]);
        await server.client.request("thread/archive", { threadId: second });
        expect(await lateModels(server.client, bystander)).toEqual([]);
      },
      E2E_TIMEOUT,
    );
  });
}
