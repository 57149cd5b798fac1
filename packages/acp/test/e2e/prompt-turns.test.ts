import { describe, expect, test } from "bun:test";
import { textReply } from "@knightcode/testkit";
import { acpWorld, responseSeq, startAcp } from "../support/acp-child.ts";

const TIMEOUT = 60_000;

describe("knightcode acp: handshake, sessions and prompt turns", () => {
  test(
    "initialize negotiates version 1 and advertises loadSession, prompt, MCP and session capabilities with agentInfo and no auth methods",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world, { initialize: false });
      const result = await acp.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      });
      expect(result.protocolVersion).toBe(1);
      expect(result.agentCapabilities?.loadSession).toBe(true);
      expect(result.agentCapabilities?.promptCapabilities).toEqual({
        image: true,
        audio: false,
        embeddedContext: true,
      });
      expect(result.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: false });
      expect(result.agentCapabilities?.sessionCapabilities).toEqual({ list: {}, resume: {}, close: {} });
      expect(result.authMethods).toEqual([]);
      expect(result.agentInfo).toEqual({ name: "knightcode", title: "KnightCode", version: "0.1.0" });
      expect(await acp.close()).toBe(0);
      expect(acp.foreign).toEqual([]);
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "a newer protocol version is answered with version 1",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world, { initialize: false });
      const result = await acp.agent.request("initialize", { protocolVersion: 7, clientCapabilities: {} });
      expect(result.protocolVersion).toBe(1);
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "session/new makes a thread in the requested cwd, not the process cwd, in ask mode with the three modes, then lists commands",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const created = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      expect(created.sessionId.length).toBeGreaterThan(0);
      expect(created.modes?.currentModeId).toBe("ask");
      expect(created.modes?.availableModes.map((m) => m.id)).toEqual(["ask", "autoEdit", "fullAccess"]);
      const commands = await acp.waitForUpdate(
        (u, s) => s === created.sessionId && u.sessionUpdate === "available_commands_update",
      );
      expect(
        commands.sessionUpdate === "available_commands_update" &&
          commands.availableCommands.map((c) => c.name),
      ).toContain("compact");
      // a session nobody prompted yet has no transcript, so it is not listed
      const listed = await acp.agent.request("session/list", {});
      expect(listed.sessions).toEqual([]);
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "a streamed text prompt streams its deltas as agent_message_chunk and answers end_turn only after the last one",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      world.mock.enqueue(textReply("Hello from the mock model, streamed in pieces.", 8));
      const answer = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Say hello" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      // deltas that arrive in one run of the agent's event loop are joined into one chunk
      const chunks = acp.updatesOf(sessionId, "agent_message_chunk");
      expect(chunks.length).toBeGreaterThanOrEqual(1);
      expect(chunks.length).toBeLessThanOrEqual(8);
      expect(chunks.map((c) => (c.content.type === "text" ? c.content.text : "")).join("")).toBe(
        "Hello from the mock model, streamed in pieces.",
      );
      // the answer comes after every update of the turn, usage included
      const lastUpdate = Math.max(
        ...acp.lines.filter((l) => l.message.method === "session/update").map((l) => l.seq),
      );
      const answered = responseSeq(
        acp,
        (m) => (m.result as { stopReason?: string } | undefined)?.stopReason === "end_turn",
      );
      expect(answered).toBeGreaterThan(lastUpdate);
      const usage = acp.updatesOf(sessionId, "usage_update");
      expect(usage.length).toBeGreaterThan(0);
      expect(usage.at(-1)!.size).toBeGreaterThan(0);
      // the model was sent the prompt text
      const request = world.mock.requests.at(-1)!;
      expect(JSON.stringify(request.body)).toContain("Say hello");
      expect(acp.schemaProblems()).toEqual([]);
      expect(await acp.close()).toBe(0);
      expect(acp.foreign).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "a reply cut at the model's output limit answers max_tokens",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      // all of the model's 8,192 output tokens used: the output limit, not the context, cut it
      world.mock.enqueue({
        steps: [{ type: "text", text: "A long answer that", deltas: 3 }],
        stopReason: "length",
        usage: { input: 100, output: 8_192 },
      });
      const answer = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "go on" }],
      });
      expect(answer.stopReason).toBe("max_tokens");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "image, resource_link and embedded resource blocks become the turn's images and text",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      world.mock.enqueue(textReply("Seen."));
      const png =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
      const answer = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [
          { type: "text", text: "Look at these" },
          { type: "resource_link", uri: "file:///work/notes.md", name: "notes.md" },
          { type: "resource", resource: { uri: "file:///work/a.ts", text: "export const a = 1;\n" } },
          { type: "image", mimeType: "image/png", data: png },
        ],
      });
      expect(answer.stopReason).toBe("end_turn");
      const body = JSON.stringify(world.mock.requests.at(-1)!.body);
      expect(body).toContain("@/work/notes.md");
      expect(body).toContain("export const a = 1;");
      expect(body).toContain("/work/a.ts");
      expect(body).toContain(png);
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "a failed turn answers a JSON-RPC error with the turn's error kind in data; refused credentials are authentication-required",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      world.mock.enqueue({ error: { kind: "auth" } });
      const auth = await acp.agent
        .request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] })
        .then(
          () => undefined,
          (error: unknown) => error as { code: number; message: string; data: { kind: string } },
        );
      expect(auth?.code).toBe(-32000);
      expect(auth?.data.kind).toBe("auth");
      expect(auth?.message).toContain("API key");
      world.mock.enqueue({ error: { kind: "badRequest" } });
      const failed = await acp.agent
        .request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] })
        .then(
          () => undefined,
          (error: unknown) => error as { code: number; data: { kind: string } },
        );
      expect(failed?.code).toBe(-32603);
      expect(failed?.data.kind).toBe("other");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );
});
