import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { acpWorld, startAcp } from "../support/acp-child.ts";

const TIMEOUT = 60_000;

describe("knightcode acp: session/cancel", () => {
  test(
    "cancel while the reply streams answers the prompt cancelled, not an error",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      world.mock.enqueue({
        steps: [{ type: "text", text: "This reply never finishes", deltas: 6 }],
        stallAfterEvents: 3,
      });
      const answer = acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "talk" }],
      });
      await acp.waitForUpdate((u, s) => s === sessionId && u.sessionUpdate === "agent_message_chunk");
      await acp.agent.notify("session/cancel", { sessionId });
      expect((await answer).stopReason).toBe("cancelled");
      // the session takes the next prompt as usual
      world.mock.enqueue(textReply("Back again."));
      expect(
        (await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] }))
          .stopReason,
      ).toBe("end_turn");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "cancel during an open permission request withdraws it, the tool never runs, and the prompt answers cancelled",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const asked = Promise.withResolvers<void>();
      const withdrawn = Promise.withResolvers<void>();
      // answers only when the agent withdraws the request
      acp.onPermission(
        (_request, signal) =>
          new Promise((resolve) => {
            asked.resolve();
            signal.addEventListener("abort", () => {
              withdrawn.resolve();
              resolve({ outcome: { outcome: "cancelled" } });
            });
          }),
      );
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      world.mock.enqueue(
        toolCallReply({ id: "call-b", name: "bash", arguments: { command: "touch ran.txt" } }),
        textReply("never asked for"),
      );
      const answer = acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "run" }],
      });
      await asked.promise;
      await acp.agent.notify("session/cancel", { sessionId });
      await withdrawn.promise;
      expect((await answer).stopReason).toBe("cancelled");
      expect(existsSync(join(world.agent.cwd, "ran.txt"))).toBe(false);
      expect(acp.updatesOf(sessionId, "tool_call_update").map((u) => u.status)).not.toContain("completed");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "cancel for a session with no prompt running, or an unknown session, changes nothing",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      await acp.agent.notify("session/cancel", { sessionId });
      await acp.agent.notify("session/cancel", { sessionId: "no-such-session" });
      world.mock.enqueue(textReply("Still here."));
      expect(
        (await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }))
          .stopReason,
      ).toBe("end_turn");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );
});
