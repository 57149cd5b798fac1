/**
 * pi's `agent_end` payload and what its handlers send: the run's messages in order, and a
 * `sendMessage` from the handler becoming a `custom_message` of the settling turn that its
 * subscribers see as an item, the transcript keeps and the next request carries; with
 * `triggerTurn` it starts the next turn once the first has settled.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type {
  ItemCompletedNotification,
  ThreadReadResult,
  TurnCompletedNotification,
} from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import {
  E2E_TIMEOUT,
  nextNotification,
  recordNotifications,
  startThread,
  TARGETS,
  transcriptLines,
  turnCompleted,
} from "./harness.ts";

const RENDERER = join(import.meta.dir, "fixtures", "extensions", "reply-renderer.ts");

const turnDone = turnCompleted;

const entries = transcriptLines;

for (const target of TARGETS) {
  describe(`[${target.name}] agent_end`, () => {
    test(
      "the handler sees the run's messages in order; what it sends is the turn's item, in the transcript and the next request",
      async () => {
        await using server = await target.start({ extensions: [RENDERER] });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        const seen = recordNotifications(server.client);
        server.mock.enqueue(
          toolCallReply({ name: "bash", arguments: { command: "echo box" }, id: "c1" }),
          textReply("a box"),
        );
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "draw it" });
        const completed = await done;
        expect(completed.turn.status).toBe("completed");

        expect(entries(path)).toContainEqual(
          expect.objectContaining({
            type: "custom",
            customType: "prompt-options",
            data: { cwd: server.agent.cwd, hasBash: true },
          }),
        );
        // the run: the prompt, the call, its result, the last reply
        expect(entries(path)).toContainEqual(
          expect.objectContaining({
            type: "custom",
            customType: "agent-end-roles",
            data: { roles: ["user", "assistant", "toolResult", "assistant"] },
          }),
        );
        const custom = entries(path).find((e) => e.type === "custom_message");
        expect(custom).toMatchObject({ customType: "rendered", content: "RENDERED[A BOX]", display: true });
        // written before the turn's end marker, so it belongs to the turn
        const kinds = entries(path).map((e) => e.type);
        expect(kinds.indexOf("custom_message")).toBeLessThan(kinds.lastIndexOf("turn_end"));

        // subscribers saw it as the turn's item before turn/completed
        const methods = seen.map((n) => n.method);
        const item = seen.findIndex(
          (n) =>
            n.method === "item/completed" &&
            (n.params as ItemCompletedNotification).item.type === "extension",
        );
        expect(item).toBeGreaterThan(-1);
        expect(item).toBeLessThan(methods.indexOf("turn/completed"));
        expect((seen[item]!.params as ItemCompletedNotification).item).toMatchObject({
          type: "extension",
          customType: "rendered",
          text: "RENDERED[A BOX]",
        });
        expect((seen[item]!.params as ItemCompletedNotification).turnId).toBe(completed.turn.id);

        const read = (await server.client.request("thread/read", { threadId })) as ThreadReadResult;
        const lastTurn = read.turns.at(-1)!;
        if ("type" in lastTurn) throw new Error("a small turn is sent inline");
        expect(lastTurn.items!.at(-1)).toMatchObject({ type: "extension", text: "RENDERED[A BOX]" });

        server.mock.enqueue(textReply("ok"));
        const second = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "and now?" });
        await second;
        expect(JSON.stringify(server.mock.requests.at(-1)!.body)).toContain("RENDERED[A BOX]");
      },
      E2E_TIMEOUT,
    );

    test(
      "with triggerTurn the next turn starts once this one settled, and its request carries the message",
      async () => {
        await using server = await target.start({ extensions: [RENDERER] });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        server.mock.enqueue(textReply("do it again"), textReply("fine"));
        // registered before the start: the triggered turn may settle before the first's answer is read
        let completions = 0;
        const triggered = nextNotification<TurnCompletedNotification>(
          server.client,
          "turn/completed",
          (p) => p.threadId === threadId && ++completions === 2,
        ).then((p) => p.turn);
        await server.client.request("turn/start", { threadId, text: "go" });
        expect((await triggered).status).toBe("completed");
        expect(server.mock.requests).toHaveLength(2);
        expect(JSON.stringify(server.mock.requests[1]!.body)).toContain("RENDERED[DO IT AGAIN]");
        // the triggered turn's own reply is rendered too, without another trigger
        const rendered = entries(path)
          .filter((e) => e.type === "custom_message")
          .map((e) => e.content);
        expect(rendered).toEqual(["RENDERED[DO IT AGAIN]", "RENDERED[FINE]"]);
      },
      E2E_TIMEOUT,
    );
  });
}
