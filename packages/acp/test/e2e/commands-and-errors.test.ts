import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { everythingServer, textReply } from "@knightcode/testkit";
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
      const renamed = await acp.waitForUpdate(
        (u, s) =>
          s === sessionId && u.sessionUpdate === "session_info_update" && u.title === "Greeting practice",
      );
      expect(renamed.sessionUpdate).toBe("session_info_update");
      const listed = await acp.agent.request("session/list", {});
      expect(listed.sessions.find((s) => s.sessionId === sessionId)?.title).toBe("Greeting practice");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );
});

describe("knightcode acp: MCP prompts", () => {
  test(
    "an editor's MCP server's prompts are commands with their arguments as the hint; one runs, one missing its argument is -32602",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const server = everythingServer();
      const { sessionId } = await acp.agent.request("session/new", {
        cwd: world.agent.cwd,
        mcpServers: [{ name: "everything", command: server.command, args: server.args, env: [] }],
      });
      const listed = await acp.waitForUpdate(
        (u, s) => s === sessionId && u.sessionUpdate === "available_commands_update",
      );
      if (listed.sessionUpdate !== "available_commands_update") throw new Error("unreachable");
      expect(listed.availableCommands).toContainEqual({
        name: "mcp__everything__args-prompt",
        description: "A prompt with two arguments, one required and one optional",
        input: { hint: "<city> [state]" },
      });
      // a prompt without arguments has no hint
      expect(listed.availableCommands).toContainEqual({
        name: "mcp__everything__simple-prompt",
        description: "A prompt with no arguments",
      });

      world.mock.enqueue(textReply("Sunny."));
      const ran = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/mcp__everything__args-prompt Oslo" }],
      });
      expect(ran.stopReason).toBe("end_turn");
      expect(JSON.stringify(world.mock.requests.at(-1)!.body)).toContain("What's weather in Oslo");

      const before = world.mock.requests.length;
      const refused = failure(
        await acp.agent
          .request("session/prompt", {
            sessionId,
            prompt: [{ type: "text", text: "/mcp__everything__args-prompt" }],
          })
          .catch((e: unknown) => e),
      );
      expect(refused.code).toBe(-32602);
      expect(refused.message).toContain("needs city");
      expect(world.mock.requests.length).toBe(before);
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );
});

describe("knightcode acp: extensions", () => {
  test(
    "-e loads an extension in every session: its command is listed and a prompt starting /persona runs it",
    async () => {
      await using world = await acpWorld();
      const extension = join(
        import.meta.dir,
        "..",
        "..",
        "..",
        "..",
        "examples",
        "extensions",
        "system-prompt-command.ts",
      );
      await using acp = await startAcp(world, { args: ["-e", extension] });
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      const listed = await acp.waitForUpdate(
        (u, s) =>
          s === sessionId &&
          u.sessionUpdate === "available_commands_update" &&
          u.availableCommands.some((c) => c.name === "persona"),
      );
      expect(
        listed.sessionUpdate === "available_commands_update" &&
          listed.availableCommands.find((c) => c.name === "persona")?.description,
      ).toBe("Add a line to the system prompt (empty clears it)");
      const ran = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/persona Answer like a ship's cook." }],
      });
      expect(ran.stopReason).toBe("end_turn");
      // the command ran without a model turn; the next turn's system prompt carries it
      expect(world.mock.requests.length).toBe(0);
      world.mock.enqueue(textReply("Aye."));
      await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
      expect(JSON.stringify(world.mock.requests[0]!.body)).toContain("Answer like a ship's cook.");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );
});

describe("knightcode acp: warnings after load", () => {
  test(
    "a warning the thread raises later (a failing extension command) reaches the editor as a message",
    async () => {
      await using world = await acpWorld();
      const extension = join(import.meta.dir, "..", "fixtures", "failing-command.ts");
      await using acp = await startAcp(world, { args: ["-e", extension] });
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      const ran = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/boom" }],
      });
      expect(ran.stopReason).toBe("end_turn");
      const warned = await acp.waitForUpdate(
        (u, s) =>
          s === sessionId &&
          u.sessionUpdate === "agent_message_chunk" &&
          u.content.type === "text" &&
          u.content.text.includes("kaboom"),
      );
      const text =
        warned.sessionUpdate === "agent_message_chunk" && warned.content.type === "text"
          ? warned.content.text
          : "";
      expect(text).toStartWith(`Warning (extension, ${extension}): `);
      expect(text).toContain("Command /boom failed: kaboom");
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
