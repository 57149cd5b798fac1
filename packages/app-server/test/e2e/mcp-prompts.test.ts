/**
 * MCP prompts as slash commands, against the real `server-everything` from npm: its
 * prompts are listed by `command/list` as `mcp__everything__<prompt>` with their declared
 * arguments, and `turn/start` with `/mcp__everything__<prompt> args` renders the prompt
 * into the request the mock model gets. A missing required argument fails like a bad `/name` (invalidParams) and
 * nothing reaches the model; a server without the prompts capability lists none. The
 * testkit's SDK server over HTTP renders mixed content: the text of user and assistant
 * messages is kept in order, an image and a binary resource are left out.
 */
import { describe, expect, test } from "bun:test";
import type { AppServerClient, TurnCompletedNotification } from "@knightcode/app-server-protocol";
import { startMcpHttpServer, textReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, type E2EServer, MOCK_MODEL, nextNotification, refusal, TARGETS } from "./harness.ts";
import { everythingThread, filesInCwd } from "./mcp-everything.ts";

/** Runs a turn with `text` to completion; resolves with the user text the model was sent. */
async function promptTurn(server: E2EServer, threadId: string, text: string): Promise<string> {
  const client: AppServerClient = server.client;
  server.mock.enqueue(textReply("ok"));
  const before = server.mock.requests.length;
  const done = nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
  const started = await client.request("turn/start", { threadId, text });
  expect(started.status).toBe("started");
  expect((await done).turn.status).toBe("completed");
  expect(server.mock.requests.length).toBe(before + 1);
  const body = server.mock.requests[before]!.body as { messages: { role: string; content: unknown }[] };
  const users = body.messages.filter((m) => m.role === "user");
  return JSON.stringify(users.at(-1)?.content);
}

for (const target of TARGETS) {
  describe(`[${target.name}] MCP prompts as slash commands`, () => {
    test(
      "command/list offers server-everything's prompts and none of server-filesystem (no prompts capability)",
      async () => {
        await using server = await target.start();
        const { threadId, warnings } = await everythingThread(server.client, server.agent.cwd, {
          files: filesInCwd(server.agent.cwd),
        });
        expect(warnings).toEqual([]);
        const { commands } = await server.client.request("command/list", { threadId });
        expect(commands).toContainEqual({
          name: "mcp__everything__simple-prompt",
          description: "A prompt with no arguments",
          source: "mcp",
          arguments: [],
        });
        expect(commands).toContainEqual({
          name: "mcp__everything__args-prompt",
          description: "A prompt with two arguments, one required and one optional",
          source: "mcp",
          arguments: [
            { name: "city", description: "Name of the city", required: true },
            { name: "state", required: false },
          ],
        });
        // only MCP prompts declare arguments
        expect(commands.find((c) => c.name === "compact")).toEqual({
          name: "compact",
          description: expect.any(String),
          source: "builtin",
        });
        expect(commands.map((c) => c.name)).toContain("mcp__everything__resource-prompt");
        expect(commands.filter((c) => c.name.startsWith("mcp__files__"))).toEqual([]);
        // the built-ins still come first
        expect(commands[0]!.name).toBe("compact");
        // a cwd listing starts no servers, so it offers no MCP prompts
        const forCwd = await server.client.request("command/list", { cwd: server.agent.cwd });
        expect(forCwd.commands.filter((c) => c.name.startsWith("mcp__"))).toEqual([]);
      },
      E2E_TIMEOUT,
    );

    test(
      "/mcp__everything__<prompt> starts a turn with the rendered prompt: no arguments, positional and name=value, an embedded text resource",
      async () => {
        await using server = await target.start();
        const { threadId } = await everythingThread(server.client, server.agent.cwd);
        const simple = await promptTurn(server, threadId, "/mcp__everything__simple-prompt");
        expect(simple).toContain("This is a simple prompt without arguments.");
        expect(simple).not.toContain("/mcp__");

        const positional = await promptTurn(server, threadId, '/mcp__everything__args-prompt "San Diego"');
        expect(positional).toContain("What's weather in San Diego");
        expect(positional).not.toContain("Texas");

        const named = await promptTurn(server, threadId, "/mcp__everything__args-prompt state=Texas Austin");
        expect(named).toContain("What's weather in Austin, Texas");

        // two messages, the second an embedded text resource, joined in order
        const resource = await promptTurn(server, threadId, "/mcp__everything__resource-prompt Text 1");
        expect(resource).toContain("This prompt includes the Text resource with id: 1");
        expect(resource).toContain("Resource 1: This is a plaintext resource");
        expect(resource.indexOf("This prompt includes")).toBeLessThan(resource.indexOf("Resource 1:"));
      },
      E2E_TIMEOUT,
    );

    test(
      "a rendered prompt's user and assistant text is joined in order; its image and binary resource are left out",
      async () => {
        await using server = await target.start();
        await using web = await startMcpHttpServer();
        const { thread, warnings } = await server.client.request("thread/start", {
          cwd: server.agent.cwd,
          model: MOCK_MODEL,
          mcpServers: { web: { url: web.url } },
        });
        expect(warnings).toEqual([]);
        const sent = await promptTurn(server, thread.id, "/mcp__web__brief topic=Rust");
        expect(JSON.parse(sent)).toBe("Brief me on Rust.\n\nNoted: I will keep it short.");
        const body = JSON.stringify(server.mock.requests.at(-1)!.body);
        expect(body).not.toContain("iVBORw0KGgo");
        expect(body).not.toContain("AAEC");
      },
      E2E_TIMEOUT,
    );

    test(
      "a missing required argument or a word too many is invalidParams, reaches no model, and the thread stays usable",
      async () => {
        await using server = await target.start();
        const { threadId } = await everythingThread(server.client, server.agent.cwd);
        const missing = await refusal(
          server.client.request("turn/start", {
            threadId,
            text: "/mcp__everything__args-prompt state=Texas",
          }),
        );
        expect(missing.code).toBe("invalidParams");
        expect(missing.message).toContain("/mcp__everything__args-prompt needs city");
        const extra = await refusal(
          server.client.request("turn/start", {
            threadId,
            text: "/mcp__everything__simple-prompt now",
          }),
        );
        expect(extra.code).toBe("invalidParams");
        expect(extra.message).toContain("takes no arguments");
        expect(server.mock.requests.length).toBe(0);
        const read = await server.client.request("thread/read", { threadId });
        expect(JSON.stringify(read)).not.toContain("Texas");
        const after = await promptTurn(server, threadId, "/mcp__everything__args-prompt Paris");
        expect(after).toContain("What's weather in Paris");
      },
      E2E_TIMEOUT,
    );
  });
}
