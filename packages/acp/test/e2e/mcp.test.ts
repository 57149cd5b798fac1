import { describe, expect, test } from "bun:test";
import { everythingServer, missingCommandServer, textReply, toolCallReply } from "@knightcode/testkit";
import { acpWorld, startAcp } from "../support/acp-child.ts";

const TIMEOUT = 60_000;

describe("knightcode acp: MCP servers from the editor", () => {
  test(
    "a stdio server from session/new becomes the thread's tools: the model calls one, the editor approves it, its output comes back",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const everything = everythingServer();
      const created = await acp.agent.request("session/new", {
        cwd: world.agent.cwd,
        mcpServers: [{ name: "everything", command: everything.command, args: everything.args, env: [] }],
      });
      expect(created._meta).toBeUndefined();
      world.mock.enqueue(
        toolCallReply({
          id: "call-m",
          name: "mcp__everything__echo",
          arguments: { message: "from the editor" },
        }),
        textReply("Echoed."),
      );
      const answer = await acp.agent.request("session/prompt", {
        sessionId: created.sessionId,
        prompt: [{ type: "text", text: "echo something" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      // the tool was offered to the model under its KnightCode name
      expect(JSON.stringify(world.mock.requests[0]!.body)).toContain("mcp__everything__echo");
      // MCP tools ask in ask mode
      expect(acp.permissionRequests.map((r) => r.toolCall.toolCallId)).toEqual(["call-m"]);
      const [call] = acp.updatesOf(created.sessionId, "tool_call");
      expect(call).toMatchObject({ kind: "other", title: "mcp__everything__echo" });
      const done = acp.updatesOf(created.sessionId, "tool_call_update").at(-1)!;
      expect(done.status).toBe("completed");
      expect(done.rawOutput).toContain("Echo: from the editor");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "entries that do not run are reported with the reason, in _meta, as a message and on stderr; secrets are never logged",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const missing = missingCommandServer();
      const created = await acp.agent.request("session/new", {
        cwd: world.agent.cwd,
        mcpServers: [
          {
            name: "gone",
            command: missing.command,
            args: [],
            env: [{ name: "TOKEN", value: "secret-value" }],
          },
          { type: "sse", name: "old", url: "http://127.0.0.1:1/sse", headers: [] },
          { name: "gone", command: "/usr/bin/false", args: [], env: [] },
        ],
      });
      const notUsed = (
        created._meta as { knightcode: { mcpServersNotUsed: { name: string; reason: string }[] } }
      ).knightcode.mcpServersNotUsed;
      expect(notUsed.slice(0, 2)).toEqual([
        { name: "old", reason: "SSE MCP servers are not supported; use stdio or HTTP" },
        { name: "gone", reason: "another server of the list has the same name" },
      ]);
      // the server's own reason for the one it could not start
      expect(notUsed[2]?.name).toBe("gone");
      expect(notUsed[2]?.reason).toMatch(/^failed: /);
      const message = await acp.waitForUpdate(
        (u, s) => s === created.sessionId && u.sessionUpdate === "agent_message_chunk",
      );
      const text =
        message.sessionUpdate === "agent_message_chunk" && message.content.type === "text"
          ? message.content.text
          : "";
      expect(text).toContain("MCP server 'gone' not used: failed: ");
      expect(text).toContain("MCP server 'old' not used: SSE MCP servers are not supported");
      expect(acp.stderr()).toContain("MCP server 'gone' not used");
      expect(acp.stderr()).not.toContain("secret-value");
      // the session works as any other
      world.mock.enqueue(textReply("Fine."));
      const answer = await acp.agent.request("session/prompt", {
        sessionId: created.sessionId,
        prompt: [{ type: "text", text: "hi" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "session/load passes its list on too, replacing the thread's: a server given at load serves the loaded session",
    async () => {
      await using world = await acpWorld();
      const everything = everythingServer();
      let sessionId: string;
      {
        await using first = await startAcp(world);
        ({ sessionId } = await first.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] }));
        // prompted once, so the session has a transcript to load
        world.mock.enqueue(textReply("hello"));
        await first.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      }
      await using acp = await startAcp(world);
      const loaded = await acp.agent.request("session/load", {
        sessionId,
        cwd: world.agent.cwd,
        mcpServers: [{ name: "everything", command: everything.command, args: everything.args, env: [] }],
      });
      expect(loaded._meta).toBeUndefined();
      await acp.agent.request("session/set_mode", { sessionId, modeId: "fullAccess" });
      world.mock.enqueue(
        toolCallReply({ id: "call-s", name: "mcp__everything__get-sum", arguments: { a: 2, b: 40 } }),
        textReply("42."),
      );
      await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "add" }] });
      const done = acp.updatesOf(sessionId, "tool_call_update").at(-1)!;
      expect(done.status).toBe("completed");
      expect(String(done.rawOutput)).toContain("42");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );
});
