/**
 * `thread/shell/run` end to end: the user's own command runs through the thread's bash
 * tool, streams `thread/shell/output`, and lands in the transcript as a `bashExecution`
 * message that the next model request carries (unless `excludeFromContext`).
 */
import { describe, expect, test } from "bun:test";
import { textReply } from "@knightcode/testkit";
import {
  E2E_TIMEOUT,
  errorCode,
  MOCK_MODEL,
  nextNotification,
  TARGETS,
  turnHeldAtApproval,
} from "./harness.ts";

for (const target of TARGETS) {
  describe(`[${target.name}] thread/shell/run`, () => {
    test(
      "thread/shell/run runs in the thread's cwd, streams its output, and the next model request sees it (excludeFromContext keeps it out)",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const { thread } = await client.request("thread/start", { cwd: server.agent.cwd, model: MOCK_MODEL });
        const shown = await client.request("thread/shell/run", {
          threadId: thread.id,
          command: "pwd; echo visible-output",
          shellId: "s1",
        });
        expect(shown).toMatchObject({ exitCode: 0, cancelled: false, truncated: false });
        expect(shown.output).toBe(`${server.agent.cwd}\nvisible-output`);
        const hidden = await client.request("thread/shell/run", {
          threadId: thread.id,
          command: "echo hidden-output; exit 3",
          excludeFromContext: true,
        });
        expect(hidden.exitCode).toBe(3);
        expect(hidden.output).toContain("hidden-output");

        server.mock.enqueue(textReply("ok"));
        const completed = nextNotification(client, "turn/completed");
        await client.request("turn/start", { threadId: thread.id, text: "what ran?" });
        await completed;
        const sent = JSON.stringify(server.mock.requests[0]!.body);
        expect(sent).toContain("visible-output");
        expect(sent).not.toContain("hidden-output");
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/shell/run streams thread/shell/output with the shellId while a long command runs",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const { thread } = await client.request("thread/start", { cwd: server.agent.cwd, model: MOCK_MODEL });
        const first = nextNotification<{ shellId?: string; output: string }>(
          client,
          "thread/shell/output",
          (p) => p.output.includes("first-line"),
        );
        const run = client.request("thread/shell/run", {
          threadId: thread.id,
          command: "echo first-line; while [ ! -f done ]; do sleep 0.02; done",
          shellId: "live",
        });
        const update = await first;
        expect(update.shellId).toBe("live");
        await Bun.write(`${server.agent.cwd}/done`, "");
        expect((await run).exitCode).toBe(0);
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/shell/run: threadNotFound for an unknown thread, turnInProgress while a turn runs",
      async () => {
        await using server = await target.start();
        const { client } = server;
        expect(
          await errorCode(client.request("thread/shell/run", { threadId: "nope", command: "true" })),
        ).toBe("threadNotFound");
        const { thread } = await client.request("thread/start", {
          cwd: server.agent.cwd,
          model: MOCK_MODEL,
          approvalMode: "ask",
        });
        const held = await turnHeldAtApproval(server, thread.id);
        expect(
          await errorCode(client.request("thread/shell/run", { threadId: thread.id, command: "true" })),
        ).toBe("turnInProgress");
        held.answer({ decision: "decline" });
        await held.completed;
      },
      E2E_TIMEOUT,
    );
  });
}
