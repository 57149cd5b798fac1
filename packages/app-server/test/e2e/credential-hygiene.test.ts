import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppServerClient, ThreadItem, TurnCompletedNotification } from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, MOCK_MODEL, nextNotification, TARGETS } from "./harness.ts";

// Unmistakable values: finding one in a tool's output can only be a leak.
const SECRETS = {
  ANTHROPIC_API_KEY: "sk-ant-e2e-leak",
  OPENAI_API_KEY: "sk-openai-e2e-leak",
  DEPLOY_TOKEN: "deploy-e2e-leak",
};

/** Runs one bash call as a tool call of the mock model; returns the tool's output. */
async function bashOutput(
  client: AppServerClient,
  mock: { enqueue(script: unknown): void },
  cwd: string,
  command: string,
): Promise<string> {
  const { thread } = await client.request("thread/start", {
    cwd,
    approvalMode: "fullAccess",
    model: MOCK_MODEL,
  });
  mock.enqueue(toolCallReply({ name: "bash", arguments: { command } }));
  mock.enqueue(textReply("done"));
  const done = nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === thread.id,
  );
  const outputs: string[] = [];
  const off = client.onNotification("item/completed", (params) => {
    const item = (params as { item: ThreadItem }).item;
    if (item.type === "toolCall") outputs.push(JSON.stringify(item));
  });
  await client.request("turn/start", { threadId: thread.id, text: "run it" });
  await done;
  off();
  return outputs.join("\n");
}

function leaked(output: string): string[] {
  return Object.values(SECRETS).filter((value) => output.includes(value));
}

for (const target of TARGETS) {
  describe(`[${target.name}] credential hygiene without a sandbox`, () => {
    test(
      "env, /proc/self/environ and $ANTHROPIC_API_KEY in a bash call show no credential",
      async () => {
        await using server = await target.start({ env: SECRETS });
        const output = await bashOutput(
          server.client,
          server.mock,
          server.agent.cwd,
          "env; tr '\\0' '\\n' < /proc/self/environ; echo \"key=[$ANTHROPIC_API_KEY]\"",
        );
        expect(output).toContain("PATH=");
        expect(output).toContain("key=[]");
        expect(leaked(output)).toEqual([]);
      },
      E2E_TIMEOUT,
    );

    test(
      "a global shellEnvironment.allow lets exactly the listed name through",
      async () => {
        await using server = await target.start({ env: SECRETS });
        writeFileSync(
          join(server.agent.agentDir, "settings.json"),
          JSON.stringify({ shellEnvironment: { allow: ["DEPLOY_TOKEN"] } }),
        );
        const output = await bashOutput(server.client, server.mock, server.agent.cwd, "env");
        expect(leaked(output)).toEqual([SECRETS.DEPLOY_TOKEN]);
      },
      E2E_TIMEOUT,
    );
  });
}
