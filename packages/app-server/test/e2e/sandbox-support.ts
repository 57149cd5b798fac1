/**
 * Helpers for the sandbox e2e tests: a `knightcode app-server --sandbox` child with a
 * temp HOME holding secrets, and tool calls run through the mock model whose outputs
 * come back by call ID.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ThreadItem, TurnCompletedNotification } from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { type E2EServer, MOCK_MODEL, nextNotification, TARGETS } from "./harness.ts";

/** Credentials in the server's environment; finding one in tool output is a leak. */
export const SECRETS = {
  ANTHROPIC_API_KEY: "sk-ant-sandbox-leak",
  OPENAI_API_KEY: "sk-openai-sandbox-leak",
  SERVICE_TOKEN: "service-token-sandbox-leak",
};

/** The private key text planted in the temp HOME. */
/**
 * A path in the host's read-only system that a sandboxed write must fail to create. Not a
 * path in this checkout: a checkout under /tmp sits in the sandbox's private tmpfs, where
 * such a write lands and vanishes, so it would prove nothing (or fail for the wrong reason).
 * Tests remove it afterwards in case a failing sandbox let the write through.
 */
export const SYSTEM_PROBE = `/usr/.knightcode-sandbox-escape-probe-${process.pid}`;

export const SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY----- sandbox-test-key";

/** Which secrets appear in `text`. */
export function leaked(text: string): string[] {
  return [...Object.values(SECRETS), SSH_KEY].filter((value) => text.includes(value));
}

const stdio = TARGETS.find((t) => t.name === "stdio")!;

/** A server started with the given arguments, a temp HOME with `~/.ssh/id_rsa`, and the secrets. */
export async function startServer(
  options: { args?: string[]; env?: Record<string, string> } = {},
): Promise<E2EServer & { home: string }> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "knightcode-home-")));
  plant(join(home, ".ssh", "id_rsa"), SSH_KEY);
  const server = await stdio.start({
    args: options.args ?? ["--sandbox"],
    env: { ...SECRETS, HOME: home, ...options.env },
  });
  const dispose = server[Symbol.asyncDispose].bind(server);
  return Object.assign(server, {
    home,
    async [Symbol.asyncDispose]() {
      try {
        await dispose();
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  });
}

/** Writes `file` (creating folders) on the host. */
export function plant(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** Starts a thread in `cwd` (full access: the sandbox, not approvals, is under test). */
export async function startThread(server: E2EServer, cwd: string) {
  return server.client.request("thread/start", { cwd, approvalMode: "fullAccess", model: MOCK_MODEL });
}

/** One tool call for {@link runTools}. */
export interface Call {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** Runs the calls as one model reply in one turn; returns each call's item by ID. */
export async function runTools(
  server: E2EServer,
  threadId: string,
  calls: Call[],
): Promise<Record<string, { output: string; status: string }>> {
  server.mock.enqueue(toolCallReply(...calls));
  server.mock.enqueue(textReply("done"));
  const items: Record<string, { output: string; status: string }> = {};
  const off = server.client.onNotification("item/completed", (params) => {
    const { threadId: from, item } = params as { threadId: string; item: ThreadItem };
    if (from === threadId && item.type === "toolCall")
      items[item.id] = { output: item.output ?? "", status: item.status };
  });
  const done = nextNotification<TurnCompletedNotification>(
    server.client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
  await server.client.request("turn/start", { threadId, text: "go" });
  await done;
  off();
  return items;
}

/** Runs one bash command; returns its output. */
export async function bash(server: E2EServer, threadId: string, command: string): Promise<string> {
  const items = await runTools(server, threadId, [{ id: "call_bash", name: "bash", arguments: { command } }]);
  return items.call_bash?.output ?? "";
}
