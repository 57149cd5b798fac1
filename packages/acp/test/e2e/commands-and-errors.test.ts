import { describe, expect, test } from "bun:test";
import { textReply } from "@knightcode/testkit";
import { MCP_NOT_HONOURED } from "../../src/mcp-servers.ts";
import { acpWorld, startAcp } from "../support/acp-child.ts";

const TIMEOUT = 60_000;

type Failure = { code: number; message: string; data?: unknown };
const failure = (e: unknown) => e as Failure;

describe("knightcode acp: slash commands", () => {
  test(
    "available_commands_update lists built-ins and prompt templates; a prompt starting /name runs it; a changed list is sent again",
    async () => {
      await using world = await acpWorld();
      await world.agent.write(
        "prompts/greet.md",
        "---\ndescription: Greet someone\n---\nSay hello to $1 warmly.",
      );
      await using acp = await startAcp(world);
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      const first = await acp.waitForUpdate(
        (u, s) => s === sessionId && u.sessionUpdate === "available_commands_update",
      );
      if (first.sessionUpdate !== "available_commands_update") throw new Error("unreachable");
      const names = first.availableCommands.map((c) => c.name);
      expect(names).toContain("compact");
      expect(names).toContain("name");
      expect(names).toContain("greet");
      // the editor has its own new-session and fork actions
      expect(names).not.toContain("new");
      expect(first.availableCommands.find((c) => c.name === "greet")?.description).toBe("Greet someone");
      expect(first.availableCommands.find((c) => c.name === "compact")?.input).toEqual({
        hint: "optional instructions for the summary",
      });

      // a prompt template expands into the user message the model gets
      world.mock.enqueue(textReply("Hello, Ada!"));
      await world.agent.write("prompts/farewell.md", "---\ndescription: Say goodbye\n---\nBid $1 farewell.");
      const ran = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/greet Ada" }],
      });
      expect(ran.stopReason).toBe("end_turn");
      expect(JSON.stringify(world.mock.requests.at(-1)!.body)).toContain("Say hello to Ada warmly.");

      // the list changed while the turn ran: a second update carries the new template
      const second = await acp.waitForUpdate(
        (u, s) =>
          s === sessionId &&
          u.sessionUpdate === "available_commands_update" &&
          u.availableCommands.some((c) => c.name === "farewell"),
      );
      expect(second.sessionUpdate).toBe("available_commands_update");

      // a built-in handled without a model turn
      const named = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/name Greeting practice" }],
      });
      expect(named.stopReason).toBe("end_turn");
      const listed = await acp.agent.request("session/list", {});
      expect(listed.sessions.find((s) => s.sessionId === sessionId)?.title).toBe("Greeting practice");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );
});

describe("knightcode acp: errors", () => {
  test(
    "invalid params answer -32602 and unknown methods -32601, and the process keeps serving",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const noCwd = failure(
        await acp.agent.request("session/new", { mcpServers: [] } as never).catch((e: unknown) => e),
      );
      expect(noCwd.code).toBe(-32602);
      const badPrompt = failure(
        await acp.agent
          .request("session/prompt", { sessionId: "x", prompt: "not blocks" } as never)
          .catch((e: unknown) => e),
      );
      expect(badPrompt.code).toBe(-32602);
      const unknown = failure(await acp.agent.request("session/frobnicate", {}).catch((e: unknown) => e));
      expect(unknown.code).toBe(-32601);
      const ext = failure(await acp.agent.request("_knightcode/nothing", {}).catch((e: unknown) => e));
      expect(ext.code).toBe(-32601);
      // a relative cwd is refused by the server: invalid params, no thread made
      const relative = failure(
        await acp.agent
          .request("session/new", { cwd: "relative/dir", mcpServers: [] })
          .catch((e: unknown) => e),
      );
      expect(relative.code).toBe(-32602);
      expect((await acp.agent.request("session/list", {})).sessions).toEqual([]);
      // still serving
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      world.mock.enqueue(textReply("Alive."));
      expect(
        (await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }))
          .stopReason,
      ).toBe("end_turn");
      const audio = failure(
        await acp.agent
          .request("session/prompt", {
            sessionId,
            prompt: [{ type: "audio", mimeType: "audio/wav", data: "AAAA" }],
          })
          .catch((e: unknown) => e),
      );
      expect(audio.code).toBe(-32602);
      expect(acp.schemaProblems()).toEqual([]);
      expect(await acp.close()).toBe(0);
      expect(acp.foreign).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "MCP servers from the editor go to the thread; those that do not run are reported in _meta, as a message and on stderr",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const created = await acp.agent.request("session/new", {
        cwd: world.agent.cwd,
        mcpServers: [
          {
            name: "files",
            command: "/usr/bin/true",
            args: [],
            env: [{ name: "TOKEN", value: "secret-value" }],
          },
          { type: "sse", name: "old", url: "http://127.0.0.1:1/sse", headers: [] },
          { name: "files", command: "/usr/bin/false", args: [], env: [] },
        ],
      });
      expect(created._meta).toEqual({
        knightcode: {
          mcpServersNotUsed: [
            { name: "old", reason: "SSE MCP servers are not supported; use stdio or HTTP" },
            { name: "files", reason: "another server of the list has the same name" },
            { name: "files", reason: MCP_NOT_HONOURED },
          ],
        },
      });
      const message = await acp.waitForUpdate(
        (u, s) => s === created.sessionId && u.sessionUpdate === "agent_message_chunk",
      );
      const text =
        message.sessionUpdate === "agent_message_chunk" && message.content.type === "text"
          ? message.content.text
          : "";
      expect(text).toContain(`MCP server 'files' not used: ${MCP_NOT_HONOURED}.`);
      expect(text).toContain("MCP server 'old' not used: SSE MCP servers are not supported");
      expect(acp.stderr()).toContain("MCP server 'files' not used");
      // an entry's secrets are never logged
      expect(acp.stderr()).not.toContain("secret-value");
      // the session works as any other
      world.mock.enqueue(textReply("Fine."));
      const answer = await acp.agent.request("session/prompt", {
        sessionId: created.sessionId,
        prompt: [{ type: "text", text: "hi" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      // session/load reports them again for the list it is given
      const loaded = await acp.agent.request("session/load", {
        sessionId: created.sessionId,
        cwd: world.agent.cwd,
        mcpServers: [{ type: "http", name: "remote", url: "http://127.0.0.1:1/mcp", headers: [] }],
      });
      expect(loaded._meta).toEqual({
        knightcode: { mcpServersNotUsed: [{ name: "remote", reason: MCP_NOT_HONOURED }] },
      });
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "a client that advertises notices gets the MCP report as a warning notice",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world, { initialize: false });
      await acp.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { session: { notices: {} } },
      });
      const created = await acp.agent.request("session/new", {
        cwd: world.agent.cwd,
        mcpServers: [{ type: "http", name: "remote", url: "http://127.0.0.1:1/mcp", headers: [] }],
      });
      const notice = await acp.waitForUpdate(
        (u, s) => s === created.sessionId && u.sessionUpdate === "notice",
      );
      expect(notice).toMatchObject({ sessionUpdate: "notice", severity: "warning" });
      expect(acp.updatesOf(created.sessionId, "agent_message_chunk")).toEqual([]);
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "the process exits 0 when stdin closes, with a session open",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      expect(await acp.close()).toBe(0);
      expect(acp.foreign).toEqual([]);
    },
    TIMEOUT,
  );
});
