/**
 * The MCP client against real third-party servers from npm over stdio
 * (`@modelcontextprotocol/server-everything`, `@modelcontextprotocol/server-filesystem`)
 * and a streamable-HTTP server built with the official SDK on 127.0.0.1.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { everythingServer, filesystemServer, startMcpHttpServer } from "@knightcode/testkit";
import { run, spec, testHub } from "./support.ts";

const textOf = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("server-everything over stdio", () => {
  test("its tools become mcp__everything__<tool> with their JSON Schema; echo and get-sum run", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    expect(await thread.start([spec("everything", everythingServer())])).toEqual([]);
    const tools = await thread.tools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("mcp__everything__echo");
    expect(names).toContain("mcp__everything__get-sum");
    const echo = tools.find((t) => t.name === "mcp__everything__echo")!;
    expect(echo.parameters).toMatchObject({ type: "object", required: ["message"] });
    expect(echo.description).toBe("Echoes back the input string");
    expect(textOf(await run(tools, "mcp__everything__echo", { message: "hello" }))).toBe("Echo: hello");
    const sum = await run(tools, "mcp__everything__get-sum", { a: 2, b: 40 });
    expect(textOf(sum)).toContain("42");
    expect(sum.isError).toBeUndefined();
    expect(sum.details).toEqual({ server: "everything", tool: "get-sum" });
    await thread.dispose();
  });

  test("an isError result is a failed call carrying the server's message", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    await thread.start([spec("everything", everythingServer())]);
    const result = await run(await thread.tools(), "mcp__everything__gzip-file-as-resource", {
      data: "ftp://example.invalid/file",
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("Unsupported URL protocol");
    await thread.dispose();
  });

  test("an image result becomes image content the model can see", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    await thread.start([spec("everything", everythingServer())]);
    const result = await run(await thread.tools(), "mcp__everything__get-tiny-image", {});
    const image = result.content.find((part) => part.type === "image");
    expect(image).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(
      Buffer.from((image as { data: string }).data, "base64")
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");
    await thread.dispose();
  });

  test("a stdio server gets PATH, HOME, LANG and its configured env, never our other variables", async () => {
    await using h = testHub({
      PATH: process.env.PATH,
      HOME: "/home/tester",
      LANG: "C.UTF-8",
      ANTHROPIC_API_KEY: "sk-ant-secret",
      USER: "tester",
    });
    const thread = h.thread(process.cwd());
    await thread.start([spec("everything", everythingServer({ env: { SERVER_TOKEN: "for-this-server" } }))]);
    const env = JSON.parse(textOf(await run(await thread.tools(), "mcp__everything__get-env", {})));
    expect(Object.keys(env).sort()).toEqual(["HOME", "LANG", "PATH", "SERVER_TOKEN"]);
    expect(env).toMatchObject({ HOME: "/home/tester", LANG: "C.UTF-8", SERVER_TOKEN: "for-this-server" });
    await thread.dispose();
  });

  test("an over-long result is cut to 2,000 lines with the whole text in a temp file", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    await thread.start([spec("everything", everythingServer())]);
    const message = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n");
    const result = await run(await thread.tools(), "mcp__everything__echo", { message });
    const text = textOf(result);
    expect(text.split("\n").slice(0, 2000).at(-1)).toBe("line 2000");
    expect(text).not.toContain("line 2001");
    const path = (result.details as { fullOutputPath: string }).fullOutputPath;
    expect(text).toContain(`Full output: ${path}`);
    expect(readFileSync(path, "utf8")).toBe(`Echo: ${message}`);
    await thread.dispose();
  });

  test("the tool allow-list offers only the named tools; a disabled server is never started", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    await thread.start([
      spec("everything", everythingServer({ tools: ["echo"] })),
      spec("off", { ...everythingServer(), enabled: false }),
    ]);
    expect((await thread.tools()).map((t) => t.name)).toEqual(["mcp__everything__echo"]);
    const status = thread.status();
    expect(status.map((s) => [s.name, s.state, s.tools.map((t) => t.serverToolName)])).toEqual([
      ["everything", "ready", ["echo"]],
      ["off", "disabled", []],
    ]);
    expect(h.hub.size).toBe(1);
    await thread.dispose();
  });

  test("threads with the same config and cwd share one process, stopped when the last lets go", async () => {
    await using h = testHub();
    const first = h.thread(process.cwd());
    const second = h.thread(process.cwd());
    const elsewhere = h.thread(tmpdir());
    await Promise.all([
      first.start([spec("everything", everythingServer())]),
      second.start([spec("everything", everythingServer())]),
      elsewhere.start([spec("everything", everythingServer())]),
    ]);
    const shared = h.hub.find("everything", everythingServer(), process.cwd())!;
    const other = h.hub.find("everything", everythingServer(), tmpdir())!;
    expect(h.hub.size).toBe(2);
    expect(shared.pid).not.toBe(other.pid);
    const pid = shared.pid!;
    await first.dispose();
    expect(alive(pid)).toBe(true);
    expect(textOf(await run(await second.tools(), "mcp__everything__echo", { message: "still" }))).toBe(
      "Echo: still",
    );
    await second.dispose();
    expect(alive(pid)).toBe(false);
    expect(shared.state).toBe("stopped");
    await elsewhere.dispose();
    expect(h.hub.size).toBe(0);
  });

  test("server stderr goes to the log labelled with the server's name", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    const noisy = everythingServer();
    await thread.start([
      spec("noisy", {
        command: "/bin/sh",
        args: ["-c", 'echo "a line on stderr" >&2; exec "$0" "$@"', noisy.command, ...noisy.args],
      }),
    ]);
    expect(h.logs).toContain("[mcp:noisy] a line on stderr");
    await thread.dispose();
  });
});

describe("server-filesystem over stdio", () => {
  test("scoped to a temp dir, it lists and reads a file there and refuses one outside", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "mcp-fs-")));
    writeFileSync(join(root, "notes.txt"), "remember the milk\n");
    await using h = testHub();
    const thread = h.thread(root);
    expect(await thread.start([spec("files", filesystemServer(root))])).toEqual([]);
    const tools = await thread.tools();
    expect(textOf(await run(tools, "mcp__files__list_directory", { path: root }))).toContain(
      "[FILE] notes.txt",
    );
    expect(textOf(await run(tools, "mcp__files__read_text_file", { path: join(root, "notes.txt") }))).toBe(
      "remember the milk\n",
    );
    const outside = await run(tools, "mcp__files__read_text_file", { path: "/etc/hostname" });
    expect(outside.isError).toBe(true);
    await thread.dispose();
  });
});

describe("streamable HTTP", () => {
  test("a server started with the SDK: calls run, headers are sent, tools/list_changed refreshes the list", async () => {
    await using server = await startMcpHttpServer();
    await using h = testHub();
    const thread = h.thread(process.cwd());
    const config = { url: server.url, headers: { "x-test-token": "t-123" } };
    expect(await thread.start([spec("web", config)])).toEqual([]);
    let tools = await thread.tools();
    expect(tools.map((t) => t.name)).toEqual(["mcp__web__add", "mcp__web__whoami", "mcp__web__reveal"]);
    expect(textOf(await run(tools, "mcp__web__add", { a: 2, b: 3 }))).toBe("The sum is 5");
    expect(textOf(await run(tools, "mcp__web__whoami", {}))).toBe("token: t-123");
    expect(server.tokens.every((token) => token === "t-123")).toBe(true);
    await run(tools, "mcp__web__reveal", {});
    tools = await thread.tools();
    expect(tools.map((t) => t.name)).toContain("mcp__web__secret");
    expect(textOf(await run(tools, "mcp__web__secret", {}))).toBe("the secret is 42");
    expect(thread.status()).toMatchObject([{ name: "web", transport: "http", state: "ready" }]);
    await thread.dispose();
  });
});
