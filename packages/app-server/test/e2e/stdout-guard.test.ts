/**
 * An extension that writes to stdout from a handler, on a real stdio child: the write goes
 * to stderr, and the protocol messages sent meanwhile (its warning, the turn's completion)
 * still reach the client on stdout.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import type { TurnCompletedNotification, Warning } from "@knightcode/app-server-protocol";
import { textReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, MOCK_MODEL, nextNotification, TARGETS } from "./harness.ts";

const stdio = TARGETS.find((t) => t.name === "stdio")!;

test(
  "a handler's stdout write goes to stderr; the warning and turn/completed it races still reach stdout",
  async () => {
    await using server = await stdio.start({
      extensions: [join(import.meta.dir, "fixtures", "extensions", "stdout-at-turn-end.ts")],
    });
    const { thread } = await server.client.request("thread/start", {
      cwd: server.agent.cwd,
      approvalMode: "fullAccess",
      model: MOCK_MODEL,
    });
    const warning = nextNotification<Warning>(server.client, "warning", (w) => w.message.includes("stdout"));
    const done = nextNotification<TurnCompletedNotification>(server.client, "turn/completed");
    server.mock.enqueue(textReply("hi"));
    await server.client.request("turn/start", { threadId: thread.id, text: "hello" });
    expect((await done).turn.status).toBe("completed");
    expect((await warning).path).toContain("stdout-at-turn-end.ts");
    // a command's write: the warning is the only output, sent from inside the extension's call
    const handled = await server.client.request("turn/start", { threadId: thread.id, text: "/stray" });
    expect(handled.status).toBe("handled");
    expect(await server.client.request("command/list", { threadId: thread.id })).toBeDefined();
    await server.shutdown();
    expect(server.stderr()).toContain("]777;notify;stray");
    expect(server.stderr()).toContain("stray command output");
  },
  E2E_TIMEOUT,
);
