/** Whole turns over each listener: a real child, the mock model, an approval answered over the socket. */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ItemToolCallRequestApprovalParams, ThreadItem } from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, nextNotification, startThread } from "../harness.ts";
import { LISTENER_KINDS, startListener } from "./listener-harness.ts";

for (const kind of LISTENER_KINDS) {
  describe(`${kind}:// turns`, () => {
    test(
      "a whole turn with an approval: asked over the socket, accepted, the tool runs, the turn completes",
      async () => {
        await using server = await startListener(kind);
        const { client } = await server.connect();
        const marker = join(server.agent.cwd, "ran.txt");
        server.mock.enqueue(
          toolCallReply({ name: "bash", arguments: { command: `echo ran > '${marker}'` } }),
          textReply("all done", 4),
        );
        const asked: ItemToolCallRequestApprovalParams[] = [];
        client.onRequest("item/toolCall/requestApproval", (params) => {
          asked.push(params);
          return { decision: "accept" };
        });
        const { threadId } = await startThread(client, server.agent.cwd, "ask");
        const tool = nextNotification<{ item: ThreadItem }>(
          client,
          "item/completed",
          (p) => p.item.type === "toolCall",
        );
        const completed = nextNotification<{ threadId: string; turn: { status: string } }>(
          client,
          "turn/completed",
          (p) => p.threadId === threadId,
        );
        const deltas: string[] = [];
        client.onNotification("item/agentMessage/delta", (p) => deltas.push(p.delta));
        await client.request("turn/start", { threadId, text: "run it" });
        expect((await completed).turn.status).toBe("completed");
        const { item } = await tool;
        expect(item.type === "toolCall" && item.status).toBe("completed");
        expect(asked.map((a) => a.toolName)).toEqual(["bash"]);
        expect(asked[0]?.decisions).toContain("accept");
        expect(deltas.join("")).toBe("all done");
        expect(await Bun.file(marker).text()).toBe("ran\n");
      },
      E2E_TIMEOUT,
    );
  });
}
