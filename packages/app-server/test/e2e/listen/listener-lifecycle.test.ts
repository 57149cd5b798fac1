/**
 * SIGTERM on a listener child in the middle of a turn: the drain of the spec's stdin-EOF
 * shutdown, the process exits by itself (no hard exit), clients see their connection
 * close, and the turn is saved as interrupted (read back through a fresh host on the
 * same agent dir).
 */
import { describe, expect, test } from "bun:test";
import { textReply } from "@knightcode/testkit";
import { createServerHost } from "../../../src/host.ts";
import { createInProcessClient } from "../../../src/in-process-client.ts";
import { E2E_TIMEOUT, nextNotification, startThread } from "../harness.ts";
import { LISTENER_KINDS, startListener } from "./listener-harness.ts";

for (const kind of LISTENER_KINDS) {
  describe(`${kind}:// lifecycle`, () => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      test(
        `${signal} during a turn drains, exits 0 on its own, and the turn is saved as interrupted`,
        async () => {
          await using server = await startListener(kind);
          const { client, closed } = await server.connect();
          const { threadId } = await startThread(client, server.agent.cwd);
          server.mock.enqueue({ ...textReply("never finished", 8), stallAfterEvents: 3 });
          const delta = nextNotification(
            client,
            "item/agentMessage/delta",
            (p: { threadId: string }) => p.threadId === threadId,
          );
          await client.request("turn/start", { threadId, text: "go" });
          await delta;
          server.kill(signal);
          expect(await server.exited).toBe(0);
          await closed;
          expect(server.stderr()).toContain(`shutting down (${signal})`);
          expect(server.stderr()).not.toContain("hard exit");
          if (server.tokenFile !== undefined) expect(await Bun.file(server.tokenFile).exists()).toBe(false);

          const host = await createServerHost({
            agentDir: server.agent.agentDir,
            env: { ...process.env, ...server.agent.env },
          });
          const reader = await createInProcessClient({
            ...host,
            clientInfo: { name: "reader", version: "1" },
          });
          try {
            const read = await reader.client.request("thread/read", { threadId });
            const turn = read.turns.at(-1);
            expect(turn !== undefined && "status" in turn && turn.status).toBe("interrupted");
          } finally {
            await reader.close();
            await host.dispose();
          }
        },
        E2E_TIMEOUT,
      );
    }
  });
}
