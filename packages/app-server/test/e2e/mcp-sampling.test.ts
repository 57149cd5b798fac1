/**
 * MCP sampling against the real `server-everything`: its `trigger-sampling-request` tool
 * sends `sampling/createMessage` back while it runs; the thread asks the user with a
 * `sampling` preview (the server, its system prompt and messages, the token cap), and
 * once accepted the thread's model (the mock) answers, and the answer reaches the
 * server, which returns it in the tool's result. Declined, the server gets MCP's
 * user-rejection error and the model is never asked.
 */
import { describe, expect, test } from "bun:test";
import type {
  AppServerClient,
  ItemToolCallRequestApprovalParams,
  ItemToolCallRequestApprovalResult,
  TurnCompletedNotification,
} from "@knightcode/app-server-protocol";
import { everythingServer, textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, MOCK_MODEL, nextNotification, TARGETS } from "./harness.ts";

const TOOL = "mcp__everything__trigger-sampling-request";

/** One turn that calls the sampling tool, answering approvals in order; resolves with what was asked. */
async function samplingTurn(
  client: AppServerClient,
  cwd: string,
  answers: ItemToolCallRequestApprovalResult["decision"][],
) {
  const { thread } = await client.request("thread/start", {
    cwd,
    model: MOCK_MODEL,
    approvalMode: "ask",
    mcpServers: { everything: everythingServer() },
  });
  const asked: ItemToolCallRequestApprovalParams[] = [];
  client.onRequest("item/toolCall/requestApproval", (params) => {
    asked.push(params);
    return { decision: answers.shift() ?? "decline" };
  });
  const done = nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === thread.id,
  );
  await client.request("turn/start", { threadId: thread.id, text: "sample something" });
  expect((await done).turn.status).toBe("completed");
  return asked;
}

for (const target of TARGETS) {
  describe(`[${target.name}] MCP sampling`, () => {
    test(
      "a server's sampling request is asked with a sampling preview, then answered by the thread's model",
      async () => {
        await using server = await target.start();
        const { mock } = server;
        mock.enqueue(
          toolCallReply({
            name: TOOL,
            arguments: { prompt: "a haiku about bees", maxTokens: 40 },
            id: "call_s",
          }),
          textReply("Bees hum in the sun"),
          textReply("done"),
        );
        const asked = await samplingTurn(server.client, server.agent.cwd, ["accept", "accept"]);
        expect(asked.map((a) => a.toolName)).toEqual([TOOL, "mcp__everything__sampling"]);
        expect(asked[1]).toMatchObject({
          itemId: "call_s",
          decisions: ["accept", "decline", "cancel"],
          preview: {
            type: "sampling",
            server: "everything",
            systemPrompt: "You are a helpful test server.",
            messages: [
              { role: "user", text: "Resource trigger-sampling-request context: a haiku about bees" },
            ],
            maxTokens: 40,
          },
        });
        // the model got the server's request as it was: its system prompt and message, no tools
        expect(mock.requests).toHaveLength(3);
        const sampled = mock.requests[1]!.body as {
          messages: { role: string; content: unknown }[];
          tools?: unknown;
        };
        expect(JSON.stringify(sampled.messages)).toContain("You are a helpful test server.");
        expect(JSON.stringify(sampled.messages)).toContain(
          "Resource trigger-sampling-request context: a haiku about bees",
        );
        expect(sampled.tools).toBeUndefined();
        // the server got the answer and put it in the tool's result, which the model read next
        const result = JSON.stringify(mock.requests[2]!.body);
        expect(result).toContain("LLM sampling result");
        expect(result).toContain("Bees hum in the sun");
      },
      E2E_TIMEOUT,
    );

    test(
      "a declined sampling request never reaches the model; the server gets the user's rejection",
      async () => {
        await using server = await target.start();
        const { mock } = server;
        mock.enqueue(
          toolCallReply({ name: TOOL, arguments: { prompt: "anything", maxTokens: 10 }, id: "call_d" }),
          textReply("done"),
        );
        const asked = await samplingTurn(server.client, server.agent.cwd, ["accept", "decline"]);
        expect(asked.map((a) => a.preview?.type)).toEqual(["tool", "sampling"]);
        expect(mock.requests).toHaveLength(2);
        expect(JSON.stringify(mock.requests[1]!.body)).toContain("declined the sampling request");
      },
      E2E_TIMEOUT,
    );
  });
}
