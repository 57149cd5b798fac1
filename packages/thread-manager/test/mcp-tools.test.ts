/**
 * MCP tools inside threads: the thread's servers (settings and client-given) start at
 * load, their tools reach the model, approvals treat them as the spec's MCP-tools row,
 * and unloading a thread stops its servers.
 */
import { describe, expect, test } from "bun:test";
import type { ApprovalMode } from "@knightcode/app-server-protocol";
import {
  everythingServer,
  missingCommandServer,
  startMcpHttpServer,
  textReply,
  toolCallReply,
} from "@knightcode/testkit";
import { createHarness, type Harness } from "./support/harness.ts";

function toolItem(h: Harness, id: string) {
  return h
    .received("c1")
    .flatMap((n) => (n.method === "item/completed" ? [n.params.item] : []))
    .find((i) => "id" in i && i.id === id);
}

async function callAddTurn(h: Harness, url: string, approvalMode: ApprovalMode) {
  const caller = h.desktop();
  const { thread, warnings } = await h.manager.startThread(
    { cwd: h.dir.cwd, approvalMode, mcpServers: { web: { url } } },
    caller,
  );
  expect(warnings).toEqual([]);
  h.server.enqueue(
    toolCallReply({ name: "mcp__web__add", arguments: { a: 20, b: 22 }, id: "call_add" }),
    textReply("done"),
  );
  await h.manager.startTurn({ threadId: thread.id, text: "add them" }, caller);
  return thread.id;
}

describe("MCP tools in threads", () => {
  for (const mode of ["ask", "autoEdit"] as const) {
    test(`an MCP call asks in ${mode}; accepting runs it and offers acceptForSession`, async () => {
      await using web = await startMcpHttpServer();
      await using h = await createHarness();
      const threadId = await callAddTurn(h, web.url, mode);
      const approval = await h.waitForApproval(0);
      expect(approval.params).toMatchObject({
        threadId,
        itemId: "call_add",
        toolName: "mcp__web__add",
        input: { a: 20, b: 22 },
        decisions: ["accept", "acceptForSession", "decline", "cancel"],
      });
      expect(web.calls).toEqual([]);
      approval.answer({ decision: "accept" });
      await h.waitFor((n) => n.method === "thread/turn/completed");
      expect(web.calls).toEqual(["add"]);
      expect(toolItem(h, "call_add")).toMatchObject({ status: "completed" });
      expect((await h.server.waitForRequest(1)).rawBody).toContain("The sum is 42");
    });
  }

  test("in fullAccess an MCP call runs without asking", async () => {
    await using web = await startMcpHttpServer();
    await using h = await createHarness();
    await callAddTurn(h, web.url, "fullAccess");
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(h.approvals).toEqual([]);
    expect(web.calls).toEqual(["add"]);
  });

  test("a declined MCP call never reaches the server", async () => {
    await using web = await startMcpHttpServer();
    await using h = await createHarness();
    await callAddTurn(h, web.url, "ask");
    (await h.waitForApproval(0)).answer({ decision: "decline", message: "not now" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(web.calls).toEqual([]);
    expect(toolItem(h, "call_add")).toMatchObject({ status: "declined" });
    expect((await h.server.waitForRequest(1)).rawBody).toContain("not now");
  });

  test("the model is offered the MCP tools with their schemas next to the built-ins", async () => {
    await using web = await startMcpHttpServer();
    await using h = await createHarness();
    const caller = h.desktop();
    const { thread } = await h.manager.startThread(
      { cwd: h.dir.cwd, mcpServers: { web: { url: web.url } } },
      caller,
    );
    h.server.enqueue(textReply("hi"));
    await h.manager.startTurn({ threadId: thread.id, text: "hello" }, caller);
    const request = await h.server.waitForRequest(0);
    const tools = (request.body as { tools: { function: { name: string; parameters: unknown } }[] }).tools;
    const names = tools.map((t) => t.function.name);
    expect(names).toContain("read");
    expect(names).toContain("mcp__web__add");
    expect(tools.find((t) => t.function.name === "mcp__web__add")!.function.parameters).toMatchObject({
      type: "object",
      required: ["a", "b"],
    });
  });

  test("settings servers and client servers are listed with origin, state and tools; a failed one is a start warning", async () => {
    await using h = await createHarness({ settings: { mcpServers: { ghost: missingCommandServer() } } });
    const caller = h.desktop();
    const { thread, warnings } = await h.manager.startThread(
      { cwd: h.dir.cwd, mcpServers: { everything: everythingServer({ tools: ["echo"] }) } },
      caller,
    );
    expect(warnings).toEqual([
      {
        source: "mcp",
        message: 'MCP server "ghost" could not start: command not found: knightcode-test-no-such-mcp-server',
      },
    ]);
    const { servers } = await h.manager.listMcpServers({ threadId: thread.id }, caller);
    expect(servers).toEqual([
      {
        name: "ghost",
        transport: "stdio",
        origin: "global",
        state: "failed",
        error: "could not start: command not found: knightcode-test-no-such-mcp-server",
        tools: [],
      },
      {
        name: "everything",
        transport: "stdio",
        origin: "thread",
        state: "ready",
        tools: [
          {
            name: "mcp__everything__echo",
            serverToolName: "echo",
            description: "Echoes back the input string",
          },
        ],
        // the tool allow-list leaves the resources alone
        resources: expect.arrayContaining([expect.objectContaining({ name: "architecture.md" })]),
        resourceTemplates: expect.any(Array),
      },
    ]);
    // A cwd lists what a new thread there would run: settings servers only, in the state a loaded thread holds them.
    const forCwd = await h.manager.listMcpServers({ cwd: h.dir.cwd }, caller);
    expect(forCwd.servers.map((s) => [s.name, s.origin, s.state])).toEqual([["ghost", "global", "failed"]]);
    await h.manager.closeAll();
    const afterUnload = await h.manager.listMcpServers({ cwd: h.dir.cwd }, caller);
    expect(afterUnload.servers).toEqual([
      { name: "ghost", transport: "stdio", origin: "global", state: "notStarted", tools: [] },
    ]);
  });

  test("listing an unknown thread is threadNotFound; a cwd that is not a directory is invalidParams", async () => {
    await using h = await createHarness();
    const code = (p: Promise<unknown>) =>
      p.then(
        () => "ok",
        (e: { code?: string }) => e.code,
      );
    expect(await code(h.manager.listMcpServers({ threadId: "nope" }, h.desktop()))).toBe("threadNotFound");
    expect(await code(h.manager.listMcpServers({ cwd: "/no/such/dir" }, h.desktop()))).toBe("invalidParams");
  });

  test("resuming with other client servers switches to them; unloading stops the thread's servers", async () => {
    await using h = await createHarness();
    const caller = h.desktop();
    const { thread } = await h.manager.startThread(
      { cwd: h.dir.cwd, mcpServers: { everything: everythingServer() } },
      caller,
    );
    const first = h.manager.mcpHub.find("everything", everythingServer(), h.dir.cwd)!;
    expect(first.state).toBe("ready");
    const resumed = await h.manager.resumeThread(
      { threadId: thread.id, mcpServers: { ghost: missingCommandServer() } },
      caller,
    );
    expect(resumed.warnings.map((w) => w.source)).toEqual(["mcp"]);
    expect(first.state).toBe("stopped");
    const { servers } = await h.manager.listMcpServers({ threadId: thread.id }, caller);
    expect(servers.map((s) => [s.name, s.origin, s.state])).toEqual([["ghost", "thread", "failed"]]);
    await h.manager.closeAll();
    expect(h.manager.mcpHub.size).toBe(0);
  });

  test("/new and /fork carry the client's servers over to the thread that replaces the old one", async () => {
    await using h = await createHarness();
    const caller = h.desktop();
    const { thread } = await h.manager.startThread(
      { cwd: h.dir.cwd, mcpServers: { everything: everythingServer({ tools: ["echo"] }) } },
      caller,
    );
    const fresh = await h.manager.startTurn({ threadId: thread.id, text: "/new" }, caller);
    expect(fresh.status).toBe("handled");
    expect(fresh.threadId).not.toBe(thread.id);
    const forked = await h.manager.startTurn({ threadId: fresh.threadId, text: "/fork branch" }, caller);
    for (const threadId of [fresh.threadId, forked.threadId]) {
      const { servers } = await h.manager.listMcpServers({ threadId }, caller);
      expect(servers.map((s) => [s.name, s.origin, s.state])).toEqual([["everything", "thread", "ready"]]);
    }
  });
});
