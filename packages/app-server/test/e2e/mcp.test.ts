/**
 * MCP servers end to end, on both transports: the testkit's mock model calls tools of
 * real servers from npm (`server-everything`, `server-filesystem`) over stdio and of a
 * streamable-HTTP server the test starts with the SDK; misbehaving servers become
 * warnings or failed calls while the thread keeps working; shutdown still finishes.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type {
  AppServerClient,
  ThreadItem,
  TurnCompletedNotification,
  WarningNotification,
} from "@knightcode/app-server-protocol";
import {
  everythingServer,
  exitsDuringCallServer,
  filesystemServer,
  hangingServer,
  junkThenEverythingServer,
  missingCommandServer,
  startMcpHttpServer,
  textReply,
  toolCallReply,
} from "@knightcode/testkit";
import { E2E_TIMEOUT, MOCK_MODEL, nextNotification, TARGETS } from "./harness.ts";

type ToolItem = Extract<ThreadItem, { type: "toolCall" }>;

/** Runs one turn and resolves with its completed tool-call items, by call ID. */
async function turnWithTools(client: AppServerClient, threadId: string, text = "go") {
  const items = new Map<string, ToolItem>();
  const off = client.onNotification("item/completed", (params) => {
    const { item } = params as { item: ThreadItem };
    if (item.type === "toolCall") items.set(item.id, item);
  });
  const done = nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
  await client.request("turn/start", { threadId, text });
  const completed = await done;
  off();
  return { items, turn: completed.turn };
}

for (const target of TARGETS) {
  describe(`[${target.name}] MCP servers`, () => {
    test(
      "the model calls server-everything's echo and get-sum; an error result fails the call; an image reaches the model",
      async () => {
        await using server = await target.start();
        const { thread, warnings } = await server.client.request("thread/start", {
          cwd: server.agent.cwd,
          model: MOCK_MODEL,
          approvalMode: "fullAccess",
          mcpServers: { everything: everythingServer() },
        });
        expect(warnings).toEqual([]);
        server.mock.enqueue(
          toolCallReply(
            { name: "mcp__everything__echo", arguments: { message: "hi there" }, id: "call_echo" },
            { name: "mcp__everything__get-sum", arguments: { a: 19, b: 23 }, id: "call_sum" },
            {
              name: "mcp__everything__gzip-file-as-resource",
              arguments: { data: "ftp://example.invalid/x" },
              id: "call_err",
            },
            { name: "mcp__everything__get-tiny-image", arguments: {}, id: "call_img" },
          ),
          textReply("all done"),
        );
        const { items, turn } = await turnWithTools(server.client, thread.id);
        expect(turn.status).toBe("completed");
        expect(items.get("call_echo")).toMatchObject({ status: "completed", output: "Echo: hi there" });
        expect(items.get("call_sum")).toMatchObject({ status: "completed" });
        expect(items.get("call_sum")?.output).toContain("42");
        expect(items.get("call_err")).toMatchObject({ status: "failed" });
        expect(items.get("call_err")?.output).toContain("Unsupported URL protocol");
        expect(items.get("call_img")).toMatchObject({ status: "completed" });
        const followUp = await server.mock.waitForRequest(1);
        expect(followUp.rawBody).toContain("Echo: hi there");
        expect(followUp.rawBody).toContain("data:image/png;base64,");
      },
      E2E_TIMEOUT,
    );

    test(
      "server-filesystem from the global settings, scoped to the project: the model lists and reads a file",
      async () => {
        await using server = await target.start();
        const cwd = server.agent.cwd;
        writeFileSync(join(cwd, "plan.md"), "step one: tests\n");
        await server.client.request("config/write", {
          scope: "global",
          key: "mcpServers",
          value: { files: filesystemServer(cwd) },
        });
        const { thread, warnings } = await server.client.request("thread/start", {
          cwd,
          model: MOCK_MODEL,
          approvalMode: "fullAccess",
        });
        expect(warnings).toEqual([]);
        server.mock.enqueue(
          toolCallReply({ name: "mcp__files__list_directory", arguments: { path: cwd }, id: "call_ls" }),
          toolCallReply({
            name: "mcp__files__read_text_file",
            arguments: { path: join(cwd, "plan.md") },
            id: "call_read",
          }),
          textReply("read it"),
        );
        const { items } = await turnWithTools(server.client, thread.id);
        expect(items.get("call_ls")?.output).toContain("[FILE] plan.md");
        expect(items.get("call_read")).toMatchObject({ status: "completed", output: "step one: tests\n" });
        const { servers } = await server.client.request("mcpServer/list", { threadId: thread.id });
        expect(servers.map((s) => [s.name, s.origin, s.state])).toEqual([["files", "global", "ready"]]);
        expect(servers[0]!.tools.map((t) => t.name)).toContain("mcp__files__read_text_file");
      },
      E2E_TIMEOUT,
    );

    test(
      "a streamable-HTTP server the test starts: the model calls it after asking, and a decline leaves it untouched",
      async () => {
        await using web = await startMcpHttpServer();
        await using server = await target.start();
        const { thread } = await server.client.request("thread/start", {
          cwd: server.agent.cwd,
          model: MOCK_MODEL,
          approvalMode: "autoEdit",
          mcpServers: { web: { url: web.url } },
        });
        const answers = ["decline", "accept"];
        const asked: string[] = [];
        const previews: unknown[] = [];
        server.client.onRequest("item/toolCall/requestApproval", (params) => {
          asked.push(`${params.toolName} ${params.decisions.join(",")}`);
          previews.push(params.preview);
          return { decision: answers.shift() as "accept" | "decline" };
        });
        server.mock.enqueue(
          toolCallReply({ name: "mcp__web__add", arguments: { a: 1, b: 2 }, id: "call_1" }),
          textReply("declined"),
        );
        const first = await turnWithTools(server.client, thread.id);
        expect(first.items.get("call_1")).toMatchObject({ status: "declined" });
        expect(web.calls).toEqual([]);
        server.mock.enqueue(
          toolCallReply({ name: "mcp__web__add", arguments: { a: 1, b: 2 }, id: "call_2" }),
          textReply("added"),
        );
        const second = await turnWithTools(server.client, thread.id);
        expect(second.items.get("call_2")).toMatchObject({ status: "completed", output: "The sum is 3" });
        expect(web.calls).toEqual(["add"]);
        expect(asked).toEqual([
          "mcp__web__add accept,acceptForSession,decline,cancel",
          "mcp__web__add accept,acceptForSession,decline,cancel",
        ]);
        // the approval names the server and the server's own name of the tool
        expect(previews[0]).toEqual({ type: "tool", source: "mcp", server: "web", tool: "add" });
      },
      E2E_TIMEOUT,
    );

    test(
      "servers that fail to start, hang or print junk are thread/start warnings; one that exits during a call fails it; the thread keeps working",
      async () => {
        await using server = await target.start();
        const { thread, warnings } = await server.client.request("thread/start", {
          cwd: server.agent.cwd,
          model: MOCK_MODEL,
          approvalMode: "fullAccess",
          mcpServers: {
            ghost: missingCommandServer(),
            stuck: hangingServer(300),
            chatty: junkThenEverythingServer(),
            crashy: exitsDuringCallServer("get-sum"),
          },
        });
        expect(warnings).toEqual([
          {
            source: "mcp",
            message:
              'MCP server "chatty" wrote output that is not JSON-RPC on stdout; those lines were skipped',
          },
          {
            source: "mcp",
            message:
              'MCP server "ghost" could not start: command not found: knightcode-test-no-such-mcp-server',
          },
          {
            source: "mcp",
            message: 'MCP server "stuck" could not start: did not finish starting within 300 ms',
          },
        ]);
        const warned = nextNotification<WarningNotification>(server.client, "warning", (p) =>
          p.message.includes("crashy"),
        );
        server.mock.enqueue(
          toolCallReply({ name: "mcp__crashy__get-sum", arguments: { a: 1, b: 1 }, id: "call_crash" }),
          textReply("it crashed"),
        );
        const crashed = await turnWithTools(server.client, thread.id);
        expect(crashed.turn.status).toBe("completed");
        expect(crashed.items.get("call_crash")).toMatchObject({ status: "failed" });
        expect(crashed.items.get("call_crash")?.output).toContain(
          'MCP server "crashy" failed the get-sum call',
        );
        expect(await warned).toEqual({
          threadId: thread.id,
          source: "mcp",
          message:
            'MCP server "crashy" exited with code 3; its tools are unavailable until the thread is reloaded',
        });
        // the next turn works, with the junk-printing server's tools and without the dead one's
        server.mock.enqueue(
          toolCallReply({ name: "mcp__chatty__echo", arguments: { message: "still here" }, id: "call_echo" }),
          textReply("fine"),
        );
        const next = await turnWithTools(server.client, thread.id);
        expect(next.items.get("call_echo")).toMatchObject({
          status: "completed",
          output: "Echo: still here",
        });
        const request = await server.mock.waitForRequest(2);
        const offered = (request.body as { tools: { function: { name: string } }[] }).tools.map(
          (t) => t.function.name,
        );
        expect(offered).toContain("mcp__chatty__echo");
        expect(offered.filter((name) => name.startsWith("mcp__crashy__"))).toEqual([]);
        const { servers } = await server.client.request("mcpServer/list", { threadId: thread.id });
        expect(servers.map((s) => [s.name, s.state])).toEqual([
          ["ghost", "failed"],
          ["stuck", "failed"],
          ["chatty", "ready"],
          ["crashy", "failed"],
        ]);
      },
      E2E_TIMEOUT,
    );

    test(
      "shutdown while a thread/start waits on a server that never answers still finishes cleanly",
      async () => {
        await using server = await target.start();
        const starting = server.client
          .request("thread/start", {
            cwd: server.agent.cwd,
            model: MOCK_MODEL,
            mcpServers: { stuck: hangingServer(600_000), everything: everythingServer() },
          })
          .then(
            () => "answered",
            (error: { code?: string }) => error.code ?? String(error),
          );
        await server.client.request("server/diagnostics", {});
        const exitCode = await server.shutdown();
        expect(["answered", "shuttingDown"]).toContain(await starting);
        if (target.name === "stdio") {
          expect(exitCode).toBe(0);
          expect(server.stderr()).not.toContain("hard exit");
        }
      },
      E2E_TIMEOUT,
    );

    test(
      "mcpServer/list for a cwd names the configured servers without starting them; bad params are refused",
      async () => {
        await using server = await target.start();
        await server.client.request("config/write", {
          scope: "global",
          key: "mcpServers",
          value: { everything: everythingServer(), off: { url: "http://127.0.0.1:1/mcp", enabled: false } },
        });
        const { servers } = await server.client.request("mcpServer/list", { cwd: server.agent.cwd });
        expect(servers).toEqual([
          { name: "everything", transport: "stdio", origin: "global", state: "notStarted", tools: [] },
          { name: "off", transport: "http", origin: "global", state: "disabled", tools: [] },
        ]);
        const code = (p: Promise<unknown>) =>
          p.then(
            () => "ok",
            (e: { code?: string }) => e.code,
          );
        expect(await code(server.client.request("mcpServer/list", { threadId: "nope" }))).toBe(
          "threadNotFound",
        );
        expect(
          await code(server.client.request("mcpServer/list", { cwd: join(server.agent.cwd, "missing") })),
        ).toBe("invalidParams");
        expect(
          await code(
            server.client.request("thread/start", {
              cwd: server.agent.cwd,
              mcpServers: { bad: { command: "x", url: "http://h" } },
            } as never),
          ),
        ).toBe("invalidParams");
      },
      E2E_TIMEOUT,
    );
  });
}
