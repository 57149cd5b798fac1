/**
 * A custom message an extension sends while no turn runs (pi's `message-renderer.ts`
 * `/status` command) reaches subscribers live as an item of the turn `thread/read` files it
 * under, with the same ID and contents, and with the message's `details`.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type {
  ExtensionItem,
  ItemCompletedNotification,
  ThreadReadResult,
} from "@knightcode/app-server-protocol";
import { textReply } from "@knightcode/testkit";
import {
  E2E_TIMEOUT,
  nextNotification,
  PI_EXAMPLES,
  startThread,
  TARGETS,
  turnCompleted,
} from "./harness.ts";

const RENDERER = join(PI_EXAMPLES, "message-renderer.ts");

for (const target of TARGETS) {
  describe(`[${target.name}] custom messages between turns`, () => {
    test(
      "a command's sendMessage after a turn is that turn's item, live and in thread/read, details included",
      async () => {
        await using server = await target.start({ extensions: [RENDERER] });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        server.mock.enqueue(textReply("hi"));
        const done = turnCompleted(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "hello" });
        const first = (await done).turn;

        const live = nextNotification<ItemCompletedNotification>(
          server.client,
          "item/completed",
          (p) => p.threadId === threadId && "type" in p.item && p.item.type === "extension",
        );
        const answer = await server.client.request("turn/start", { threadId, text: "/status warn disk low" });
        expect(answer.status).toBe("handled");
        const shown = await live;
        expect(shown.turnId).toBe(first.id);
        const item = shown.item as ExtensionItem;
        expect(item).toMatchObject({ type: "extension", customType: "status-update", text: "disk low" });
        expect(item.details).toMatchObject({ level: "warn", timestamp: expect.any(Number) });

        const read = (await server.client.request("thread/read", { threadId })) as ThreadReadResult;
        const turn = read.turns.at(-1)!;
        if ("type" in turn) throw new Error("a small turn is sent inline");
        expect(turn.id).toBe(first.id);
        expect(turn.items!.at(-1)).toEqual(item);
      },
      E2E_TIMEOUT,
    );
  });
}
