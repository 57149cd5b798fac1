/**
 * pi's observer events through the protocol: a pi-typed fixture logs what
 * `message_start`/`message_update`, `tool_execution_*`, `turn_*` and `session_tree` carry,
 * in the order the agent emits them. Handlers that never settle hold up neither the agent
 * (an observer) nor a fork for longer than the hook timeout (`session_before_fork`).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TurnCompletedNotification, Warning } from "@knightcode/app-server-protocol";
import { MOCK_PROVIDERS, textReply, toolCallReply } from "@knightcode/testkit";
import {
  E2E_TIMEOUT,
  type E2EServer,
  MOCK_MODEL,
  nextNotification,
  startThread,
  TARGETS,
} from "./harness.ts";

const fixture = (name: string) => join(import.meta.dir, "fixtures", "extensions", name);

async function runTurn(
  server: E2EServer,
  threadId: string,
  text: string,
): Promise<TurnCompletedNotification> {
  const done = nextNotification<TurnCompletedNotification>(
    server.client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
  await server.client.request("turn/start", { threadId, text });
  return done;
}

type Observed = Record<string, unknown> & { type: string };

function observed(server: E2EServer): Observed[] {
  return readFileSync(join(server.agent.cwd, "observed.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Observed);
}

for (const target of TARGETS) {
  describe(`[${target.name}] pi's observer events`, () => {
    test(
      "a turn with a bash call: message, tool execution and turn events in emit order with pi's payloads",
      async () => {
        await using server = await target.start({ extensions: [fixture("pi-observers.ts")] });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        server.mock.enqueue(
          toolCallReply({ name: "bash", arguments: { command: "echo hello" }, id: "c1" }),
          textReply("all done", 3),
        );
        expect((await runTurn(server, threadId, "run it")).turn.status).toBe("completed");
        const events = observed(server);
        const updates = events.filter((e) => e.type === "message_update");
        expect(updates.every((e) => e.role === "assistant")).toBe(true);
        expect(
          updates
            .filter((e) => e.event === "text_delta")
            .map((e) => e.delta)
            .join(""),
        ).toBe("all done");
        expect(updates.filter((e) => e.event === "text_delta").length).toBe(3);
        expect(updates.some((e) => e.event === "toolcall_end")).toBe(true);
        expect(events.filter((e) => e.type !== "message_update")).toEqual([
          { type: "turn_start", turnIndex: 0 },
          { type: "message_start", role: "user" },
          { type: "message_end", role: "user" },
          { type: "message_start", role: "assistant" },
          { type: "message_end", role: "assistant" },
          {
            type: "tool_execution_start",
            toolCallId: "c1",
            toolName: "bash",
            args: { command: "echo hello" },
          },
          {
            type: "tool_execution_update",
            toolCallId: "c1",
            toolName: "bash",
            command: "echo hello",
            partial: "hello\n",
          },
          { type: "tool_execution_end", toolCallId: "c1", toolName: "bash", isError: false, text: "hello" },
          { type: "message_start", role: "toolResult" },
          { type: "message_end", role: "toolResult" },
          { type: "turn_end", turnIndex: 0 },
          { type: "turn_start", turnIndex: 1 },
          { type: "message_start", role: "assistant" },
          { type: "message_end", role: "assistant" },
          { type: "turn_end", turnIndex: 1 },
        ]);
        // the reply's updates all come between its message_start and message_end
        const start = events.findLastIndex((e) => e.type === "message_start" && e.role === "assistant");
        const end = events.findLastIndex((e) => e.type === "message_end");
        expect(events.slice(start + 1, end).map((e) => `${e.type}:${e.event}`)).toEqual([
          "message_update:text_start",
          "message_update:text_delta",
          "message_update:text_delta",
          "message_update:text_delta",
          "message_update:text_end",
        ]);
      },
      E2E_TIMEOUT,
    );

    test(
      "session_tree follows thread/tree/navigate with the old and new leaf, and the summary entry when one is written",
      async () => {
        await using server = await target.start({ extensions: [fixture("pi-observers.ts")] });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        server.mock.enqueue(textReply("answer one"), textReply("answer two"), textReply("SUMMARY"));
        await runTurn(server, threadId, "question one");
        await runTurn(server, threadId, "question two");
        const tree = await server.client.request("thread/tree/read", { threadId });
        const one = tree.entries.find((e) => e.preview === "answer one")!;
        const two = tree.entries.find((e) => e.preview === "answer two")!;
        const plain = await server.client.request("thread/tree/navigate", { threadId, entryId: one.id });
        expect(plain.leafId).toBe(one.id);
        await server.client.request("thread/tree/navigate", { threadId, entryId: two.id });
        const summarized = await server.client.request("thread/tree/navigate", {
          threadId,
          entryId: one.id,
          summarize: true,
        });
        const moves = observed(server).filter((e) => e.type === "session_tree");
        expect(moves).toEqual([
          { type: "session_tree", newLeafId: one.id, oldLeafId: tree.leafId },
          { type: "session_tree", newLeafId: two.id, oldLeafId: one.id },
          {
            type: "session_tree",
            newLeafId: summarized.summaryEntryId,
            oldLeafId: two.id,
            summary: expect.stringContaining("SUMMARY"),
            fromExtension: false,
          },
        ]);
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/settings/update: model_select names the new and previous model, thinking_level_select the new and previous level, and only on a change",
      async () => {
        await using server = await target.start({ extensions: [fixture("pi-observers.ts")] });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const update = (params: Record<string, unknown>) =>
          server.client.request("thread/settings/update", { threadId, ...params });
        await update({ thinkingLevel: "high" });
        await update({ thinkingLevel: "low" });
        await update({ thinkingLevel: "low" });
        await update({ model: { provider: MOCK_PROVIDERS.responses, id: MOCK_MODEL.id } });
        const events = observed(server);
        expect(events.slice(1)).toEqual([
          { type: "thinking_level_select", level: "low", previousLevel: "high" },
          {
            type: "model_select",
            model: `${MOCK_PROVIDERS.responses}/${MOCK_MODEL.id}`,
            previousModel: `${MOCK_MODEL.provider}/${MOCK_MODEL.id}`,
            source: "set",
          },
        ]);
        expect(events[0]).toMatchObject({ type: "thinking_level_select", level: "high" });
        expect(events[0]!.previousLevel).not.toBe("high");
      },
      E2E_TIMEOUT,
    );

    test(
      "a tool_execution_start handler that never settles holds up neither the tool nor the next request; a session_before_fork one lets the fork go ahead after the timeout",
      async () => {
        await using server = await target.start({
          extensions: [fixture("hanging-observers.ts")],
          settings: { extensionHookTimeoutMs: 2_000 },
        });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const warnings: Warning[] = [];
        let requestsAtFirstWarning: number | undefined;
        server.client.onNotification("warning", (params) => {
          requestsAtFirstWarning ??= server.mock.requests.length;
          warnings.push(params as Warning);
        });
        server.mock.enqueue(
          toolCallReply({ name: "bash", arguments: { command: "echo ran" }, id: "c1" }),
          textReply("done"),
        );
        expect((await runTurn(server, threadId, "go")).turn.status).toBe("completed");
        // the tool ran and the model got its result while the handler still hung
        expect(requestsAtFirstWarning).toBe(2);
        expect(JSON.stringify(server.mock.requests[1]!.body)).toContain("ran");
        expect(warnings[0]!.message).toContain("tool_execution_start did not answer within 2000 ms");
        const { thread } = await server.client.request("thread/fork", { threadId });
        expect(thread.forkedFromId).toBe(threadId);
        expect(warnings.at(-1)!.message).toContain("session_before_fork did not answer within 2000 ms");
      },
      E2E_TIMEOUT,
    );
  });
}
