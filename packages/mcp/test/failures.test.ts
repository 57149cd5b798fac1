/**
 * Servers that misbehave: a command that does not exist, one that never answers
 * `initialize`, one that writes junk on stdout, one that exits during a call. Each is a
 * warning or a failed call; the other servers and the thread's tools keep working.
 */
import { describe, expect, test } from "bun:test";
import {
  everythingServer,
  exitsDuringCallServer,
  hangingServer,
  junkThenEverythingServer,
  missingCommandServer,
} from "@knightcode/testkit";
import type { ConnectionEvent } from "../src/index.ts";
import { run, spec, testHub } from "./support.ts";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("servers that fail", () => {
  test("a command that does not exist is a start warning; the other server still works", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    const warnings = await thread.start([
      spec("ghost", missingCommandServer()),
      spec("everything", everythingServer()),
    ]);
    expect(warnings).toEqual([
      {
        source: "mcp",
        message: 'MCP server "ghost" could not start: command not found: knightcode-test-no-such-mcp-server',
      },
    ]);
    expect(thread.status().map((s) => [s.name, s.state])).toEqual([
      ["ghost", "failed"],
      ["everything", "ready"],
    ]);
    const tools = await thread.tools();
    expect(tools.some((t) => t.name.startsWith("mcp__ghost__"))).toBe(false);
    expect((await run(tools, "mcp__everything__echo", { message: "ok" })).isError).toBeUndefined();
    await thread.dispose();
  });

  test("an HTTP server nobody listens on is a start warning", async () => {
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const url = `http://127.0.0.1:${probe.port}/mcp`;
    await probe.stop(true);
    await using h = testHub();
    const thread = h.thread(process.cwd());
    const warnings = await thread.start([spec("web", { url })]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message.startsWith('MCP server "web" could not start: ')).toBe(true);
    expect(thread.status()).toMatchObject([{ name: "web", transport: "http", state: "failed" }]);
    expect(await thread.tools()).toEqual([]);
    await thread.dispose();
  });

  test("a server that hangs on initialize times out as a warning and its process is stopped", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    const warnings = await thread.start([spec("stuck", hangingServer(300))]);
    expect(warnings).toEqual([
      { source: "mcp", message: 'MCP server "stuck" could not start: did not finish starting within 300 ms' },
    ]);
    const connection = h.hub.find("stuck", hangingServer(300), process.cwd())!;
    expect(connection.state).toBe("failed");
    expect(alive(connection.pid!)).toBe(false);
    expect(await thread.tools()).toEqual([]);
    await thread.dispose();
  });

  test("junk on stdout is skipped with one warning; the server's tools still work", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    const warnings = await thread.start([spec("chatty", junkThenEverythingServer())]);
    expect(warnings).toEqual([
      {
        source: "mcp",
        message: 'MCP server "chatty" wrote output that is not JSON-RPC on stdout; those lines were skipped',
      },
    ]);
    expect(h.logs.filter((line) => line.startsWith("[mcp:chatty] skipped a stdout line"))).toHaveLength(2);
    const echo = await run(await thread.tools(), "mcp__chatty__echo", { message: "fine" });
    expect(echo.content).toEqual([{ type: "text", text: "Echo: fine" }]);
    await thread.dispose();
  });

  test("a server that exits during a call fails that call, warns later subscribers, and drops its tools", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    expect(
      await thread.start([
        spec("crashy", exitsDuringCallServer("get-sum")),
        spec("everything", everythingServer()),
      ]),
    ).toEqual([]);
    const tools = await thread.tools();
    const connection = h.hub.find("crashy", exitsDuringCallServer("get-sum"), process.cwd())!;
    const failed = new Promise<ConnectionEvent>((resolve) => {
      connection.on((event) => {
        if (event.type === "failed") resolve(event);
      });
    });
    const call = run(tools, "mcp__crashy__get-sum", { a: 1, b: 2 });
    await expect(call).rejects.toThrow('MCP server "crashy" failed the get-sum call');
    await failed;
    expect(h.later).toEqual([
      {
        source: "mcp",
        message:
          'MCP server "crashy" exited with code 3; its tools are unavailable until the thread is reloaded',
      },
    ]);
    const after = await thread.tools();
    expect(after.some((t) => t.name.startsWith("mcp__crashy__"))).toBe(false);
    expect((await run(after, "mcp__everything__echo", { message: "alive" })).isError).toBeUndefined();
    expect(thread.status().find((s) => s.name === "crashy")).toMatchObject({ state: "failed", tools: [] });
    // a thread loading later gets a fresh process instead of the dead one
    const reloaded = h.thread(process.cwd());
    expect(await reloaded.start([spec("crashy", exitsDuringCallServer("get-sum"))])).toEqual([]);
    const revived = h.hub.find("crashy", exitsDuringCallServer("get-sum"), process.cwd())!;
    expect(revived).not.toBe(connection);
    expect(revived.state).toBe("ready");
    await reloaded.dispose();
    await thread.dispose();
  });

  test("an interrupted call rejects at once and the server keeps serving", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    await thread.start([spec("everything", everythingServer())]);
    const tools = await thread.tools();
    const controller = new AbortController();
    const long = run(
      tools,
      "mcp__everything__trigger-long-running-operation",
      { duration: 600, steps: 2 },
      controller.signal,
    );
    controller.abort(new Error("interrupted"));
    await expect(long).rejects.toThrow("interrupted");
    expect((await run(tools, "mcp__everything__echo", { message: "after" })).content).toEqual([
      { type: "text", text: "Echo: after" },
    ]);
    await thread.dispose();
  });

  test("closing the hub ends a start still waiting on a hanging server, without waiting for its timeout", async () => {
    const h = testHub();
    const thread = h.thread(process.cwd());
    const starting = thread.start([spec("stuck", hangingServer(600_000))]);
    const connection = h.hub.find("stuck", hangingServer(600_000), process.cwd())!;
    await h.hub.closeAll();
    expect(await starting).toEqual([]);
    expect(connection.state).toBe("stopped");
    expect(alive(connection.pid!)).toBe(false);
    await thread.dispose();
  });

  test("a client-given config that is not valid is a warning and starts nothing", async () => {
    const { threadServerSpecs } = await import("../src/index.ts");
    const warnings: { source: string; message: string }[] = [];
    const specs = threadServerSpecs(
      [],
      { bad: { command: "x", url: "http://h" }, ok: { url: "http://127.0.0.1:1/mcp" } },
      warnings,
    );
    expect(specs.map((s) => [s.name, s.origin])).toEqual([["ok", "thread"]]);
    expect(warnings).toEqual([
      {
        source: "mcp",
        message:
          'MCP server "bad" from the client needs exactly one of `command` (stdio) or `url` (streamable HTTP); not started',
      },
    ]);
  });
});
