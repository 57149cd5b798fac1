/**
 * What extensions do to their thread through the API, observed through the protocol and
 * the transcript: custom messages, user messages, names and labels, active tools, `ctx`
 * during a running turn.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, startThread, TARGETS, transcriptLines, turnCompleted } from "./harness.ts";

const MESSENGER = join(import.meta.dir, "fixtures", "extensions", "messenger.ts");

const turnDone = turnCompleted;

const entries = transcriptLines;

for (const target of TARGETS) {
  describe(`[${target.name}] extension actions`, () => {
    test(
      "sendMessage while idle stores a custom message the next request carries; sendUserMessage starts a turn",
      async () => {
        await using server = await target.start({ extensions: [MESSENGER] });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        expect(
          (await server.client.request("turn/start", { threadId, text: "/note remember the milk" })).status,
        ).toBe("handled");
        expect(entries(path)).toContainEqual(
          expect.objectContaining({
            type: "custom_message",
            customType: "note",
            content: "NOTE: remember the milk",
          }),
        );
        server.mock.enqueue(textReply("noted"));
        const done = turnDone(server.client, threadId);
        expect(
          (await server.client.request("turn/start", { threadId, text: "/ask what should I buy?" })).status,
        ).toBe("handled");
        expect((await done).turn.status).toBe("completed");
        const body = JSON.stringify(server.mock.requests[0]!.body);
        expect(body).toContain("NOTE: remember the milk");
        expect(body).toContain("what should I buy?");
      },
      E2E_TIMEOUT,
    );

    test(
      "during a turn: ctx reports the running turn, a steered message joins the next request, setActiveTools narrows the tools",
      async () => {
        await using server = await target.start({ extensions: [MESSENGER] });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        await server.client.request("turn/start", { threadId, text: "/only-read" });
        server.mock.enqueue(
          toolCallReply({ name: "introspect", arguments: {}, id: "call_i" }),
          textReply("done"),
        );
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "look around" });
        await done;
        const first = server.mock.requests[0]!.body as { tools?: { function: { name: string } }[] };
        expect(first.tools!.map((t) => t.function.name).sort()).toEqual(["introspect", "read"]);
        const second = JSON.stringify(server.mock.requests[1]!.body);
        expect(second).toContain("STEERED NOTE");
        const report = JSON.parse(
          (
            (
              server.mock.requests[1]!.body as { messages: { role: string; content: unknown }[] }
            ).messages.find((m) => m.role === "tool")!.content as string
          ).toString(),
        ) as Record<string, unknown>;
        expect(report).toEqual({
          idle: false,
          hasSignal: true,
          systemPrompt: true,
          contextWindow: 200_000,
          model: "mock-model",
          activeTools: ["read", "introspect"],
          thinking: "off",
        });
      },
      E2E_TIMEOUT,
    );

    test(
      "setSessionName names the thread (thread/read shows it) and setLabel stores a label entry",
      async () => {
        await using server = await target.start({ extensions: [MESSENGER] });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        await server.client.request("turn/start", { threadId, text: "/title Groceries" });
        const { thread } = await server.client.request("thread/read", { threadId });
        expect(thread.name).toBe("Groceries");
        expect(entries(path)).toContainEqual(expect.objectContaining({ type: "label", label: "start" }));
      },
      E2E_TIMEOUT,
    );
  });
}
