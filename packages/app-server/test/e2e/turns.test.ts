import { describe, expect, test } from "bun:test";
import type { AppServerClient, ThreadItem, TurnCompletedNotification } from "@knightcode/app-server-protocol";
import { splitIntoDeltas, textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, MOCK_MODEL, nextNotification, recordNotifications, TARGETS } from "./harness.ts";

async function startThread(client: AppServerClient, cwd: string, approvalMode: "ask" | "fullAccess" = "ask") {
  const { thread } = await client.request("thread/start", { cwd, approvalMode, model: MOCK_MODEL });
  return thread.id;
}

function turnDone(client: AppServerClient, threadId: string): Promise<TurnCompletedNotification> {
  return nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
}

for (const target of TARGETS) {
  describe(`[${target.name}] turns`, () => {
    test(
      "a plain turn's notifications arrive in the spec's order",
      async () => {
        await using server = await target.start();
        server.mock.enqueue(textReply("Hello from the mock model.", 5));
        const threadId = await startThread(server.client, server.agent.cwd);
        const seen = recordNotifications(server.client);
        const done = turnDone(server.client, threadId);
        const start = await server.client.request("turn/start", { threadId, text: "hi", requestId: "req-1" });
        expect(start).toEqual({ status: "started", threadId, requestId: "req-1" });
        const completed = await done;
        expect(completed.turn.status).toBe("completed");
        expect(completed.turn.items).toBeUndefined();
        const stream = seen
          .filter((n) => n.method.startsWith("turn/") || n.method.startsWith("item/"))
          .filter((n) => n.method !== "turn/queue/updated")
          .map((n) => {
            const item = (n.params as { item?: { type: string } }).item;
            return item === undefined ? n.method : `${n.method}:${item.type}`;
          });
        const deltas = stream.filter((m) => m === "item/agentMessage/delta").length;
        expect(deltas).toBeGreaterThan(0);
        expect(stream).toEqual([
          "turn/started",
          "item/started:userMessage",
          "item/completed:userMessage",
          "item/started:agentMessage",
          ...Array<string>(deltas).fill("item/agentMessage/delta"),
          "item/completed:agentMessage",
          "turn/completed",
        ]);
        const started = seen.find((n) => n.method === "turn/started")!.params as { requestId?: string };
        expect(started.requestId).toBe("req-1");
        const agent = seen.find(
          (n) =>
            n.method === "item/completed" && (n.params as { item: ThreadItem }).item.type === "agentMessage",
        )!.params as { item: ThreadItem };
        expect(agent.item.type === "agentMessage" && agent.item.text).toBe("Hello from the mock model.");
      },
      E2E_TIMEOUT,
    );

    test(
      "opt-outs filter notifications for that connection only, never responses",
      async () => {
        await using server = await target.start({
          init: { capabilities: { optOutNotifications: ["item/agentMessage/delta", "no/such/method"] } },
        });
        server.mock.enqueue({ steps: [{ type: "text", text: "one two three four", deltas: 4 }] });
        const threadId = await startThread(server.client, server.agent.cwd);
        const seen = recordNotifications(server.client);
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "hi" });
        await done;
        expect(seen.some((n) => n.method === "item/agentMessage/delta")).toBe(false);
        expect(seen.some((n) => n.method === "item/completed")).toBe(true);
      },
      E2E_TIMEOUT,
    );

    test(
      "a large reply becomes a payload reference that reads back byte-exact",
      async () => {
        await using server = await target.start();
        const text = "héllo wörld ✓ ".repeat(12_000);
        server.mock.enqueue({ steps: [{ type: "text", text, deltas: 8 }] });
        const threadId = await startThread(server.client, server.agent.cwd);
        const completedItem = nextNotification<{ item: ThreadItem | { type: "payloadRef" } }>(
          server.client,
          "item/completed",
          (p) => p.item.type !== "userMessage",
        );
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "say a lot" });
        const { item } = await completedItem;
        expect(item.type).toBe("payloadRef");
        const resolved = await server.client.resolveItem(item as never);
        expect(resolved.type === "agentMessage" && resolved.text).toBe(text);

        // history: the same turn read back references the large item, and resolves to the same text
        await done;
        const page = await server.client.request("thread/read", { threadId });
        const turn = await server.client.resolveTurn(page.turns[page.turns.length - 1]!);
        const items = turn.items ?? [];
        const agent = items.find((i) => "type" in i && i.type === "agentMessage") as ThreadItem | undefined;
        expect(agent?.type === "agentMessage" && agent.text).toBe(text);
        const diagnostics = await server.client.request("server/diagnostics", {});
        expect(diagnostics.payloadFiles).toBeGreaterThan(0);
      },
      E2E_TIMEOUT,
    );

    test(
      "a tool call under ask mode asks the client, and accept lets it run",
      async () => {
        await using server = await target.start();
        server.mock.enqueue(
          toolCallReply({ name: "bash", arguments: { command: "echo approved-run" } }),
          textReply("done"),
        );
        const threadId = await startThread(server.client, server.agent.cwd);
        const asked: { toolName: string; decisions: string[] }[] = [];
        server.client.onRequest("item/toolCall/requestApproval", (params) => {
          asked.push(params);
          return { decision: "accept" };
        });
        const toolDone = nextNotification<{ item: ThreadItem }>(
          server.client,
          "item/completed",
          (p) => p.item.type === "toolCall",
        );
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "run it" });
        const { item } = await toolDone;
        await done;
        expect(asked.length).toBe(1);
        expect(asked[0]!.toolName).toBe("bash");
        expect(asked[0]!.decisions).toContain("accept");
        expect(item.type === "toolCall" && item.status).toBe("completed");
        expect(item.type === "toolCall" && item.output).toContain("approved-run");
      },
      E2E_TIMEOUT,
    );

    if (target.name === "in-process") {
      test(
        "an approval goes to one subscriber and migrates when it disconnects",
        async () => {
          await using server = await target.start();
          server.mock.enqueue(
            toolCallReply({ name: "bash", arguments: { command: "echo migrated" } }),
            textReply("done"),
          );
          const second = await server.connect!();
          const threadId = await startThread(server.client, server.agent.cwd);
          await second.request("thread/resume", { threadId });
          const firstAsked = Promise.withResolvers<string | number>();
          server.client.onRequest("item/toolCall/requestApproval", (_params, context) => {
            firstAsked.resolve(context.id);
            return new Promise(() => {});
          });
          const secondAsked: string[] = [];
          second.onRequest("item/toolCall/requestApproval", (params) => {
            secondAsked.push(params.toolName);
            return { decision: "accept" };
          });
          const done = turnDone(second, threadId);
          await server.client.request("turn/start", { threadId, text: "run it" });
          await firstAsked.promise;
          expect(secondAsked).toEqual([]);
          await server.client.close();
          const completed = await done;
          expect(completed.turn.status).toBe("completed");
          expect(secondAsked).toEqual(["bash"]);
        },
        E2E_TIMEOUT,
      );

      test(
        "an approval withdrawn by interrupt sends serverRequest/cancelled",
        async () => {
          await using server = await target.start();
          server.mock.enqueue(
            toolCallReply({ name: "bash", arguments: { command: "echo never" } }),
            textReply("done"),
          );
          const threadId = await startThread(server.client, server.agent.cwd);
          const asked = Promise.withResolvers<string | number>();
          server.client.onRequest("item/toolCall/requestApproval", (_p, context) => {
            asked.resolve(context.id);
            return new Promise(() => {});
          });
          const cancelled = nextNotification<{ requestId: string | number }>(
            server.client,
            "serverRequest/cancelled",
          );
          await server.client.request("turn/start", { threadId, text: "run it" });
          const id = await asked.promise;
          await server.client.request("turn/interrupt", { threadId });
          expect((await cancelled).requestId).toBe(id);
        },
        E2E_TIMEOUT,
      );
    }

    test(
      "a turn of many deltas streams every delta in order",
      async () => {
        await using server = await target.start();
        const text = "x".repeat(2000);
        server.mock.enqueue({ steps: [{ type: "text", text, deltas: 500 }] });
        expect(splitIntoDeltas(text, 500).length).toBe(500);
        const threadId = await startThread(server.client, server.agent.cwd);
        let streamed = "";
        server.client.onNotification("item/agentMessage/delta", (p) => {
          streamed += p.delta;
        });
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "go" });
        await done;
        expect(streamed).toBe(text);
      },
      E2E_TIMEOUT,
    );
  });
}
