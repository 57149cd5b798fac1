/**
 * OAuth for streamable-HTTP servers against the testkit's OAuth-protected server (the
 * SDK's own auth router and bearer guard): a 401 starts the SDK's client flow, the
 * "browser" (the test's opener, which follows the authorization redirect over real HTTP)
 * lands on the loopback listener, the code is exchanged, and the server's tools are
 * listed. The credentials file is 0600 in a 0700 folder and the token appears in no
 * log line; a second start reuses the stored token without signing in again.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMcpOAuthServer } from "@knightcode/testkit/mcp-oauth-server";
import { McpHub, type McpWarning, ThreadMcpServers } from "../src/index.ts";
import { run, spec } from "./support.ts";

function hubWith(dir: string | undefined, opened: URL[], logs: string[]) {
  return new McpHub({
    log: (line) => logs.push(line),
    ...(dir !== undefined ? { oauthDir: dir } : {}),
    openAuthorizationUrl: async (url) => {
      opened.push(url);
      // the user's browser: the authorization server approves and redirects to our loopback
      const landed = await fetch(url);
      if (landed.status !== 200) throw new Error(`the redirect landed with ${landed.status}`);
    },
  });
}

async function startThread(hub: McpHub, cwd: string, url: string) {
  const later: McpWarning[] = [];
  const thread = new ThreadMcpServers({ hub, cwd, warn: (w) => later.push(w) });
  const warnings = await thread.start([spec("guarded", { url, startTimeoutMs: 20_000 })]);
  return { thread, warnings };
}

describe("OAuth for streamable-HTTP servers", () => {
  test("a 401 runs the loopback flow; the tools are listed after it and the token file is 0600", async () => {
    await using server = await startMcpOAuthServer();
    const root = mkdtempSync(join(tmpdir(), "knightcode-oauth-"));
    try {
      const dir = join(root, "mcp-oauth");
      const opened: URL[] = [];
      const logs: string[] = [];
      const hub = hubWith(dir, opened, logs);
      const { thread, warnings } = await startThread(hub, root, server.url);
      expect(warnings).toEqual([]);
      expect(opened).toHaveLength(1);
      expect(opened[0]!.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      expect(opened[0]!.searchParams.get("code_challenge_method")).toBe("S256");
      const tools = await thread.tools();
      expect(tools.map((t) => t.name)).toEqual(["mcp__guarded__guarded-echo"]);
      const echoed = await run(tools, "mcp__guarded__guarded-echo", { text: "through oauth" });
      expect(echoed.content).toEqual([{ type: "text", text: "through oauth" }]);

      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      const file = join(dir, files[0]!);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(server.issuedTokens).toHaveLength(1);
      const token = server.issuedTokens[0]!;
      expect(readFileSync(file, "utf8")).toContain(token);
      expect(logs.join("\n")).not.toContain(token);
      await hub.closeAll();

      // a new process with the same agent dir: the stored token is used, no sign-in
      const again: URL[] = [];
      const second = hubWith(dir, again, logs);
      const restarted = await startThread(second, root, server.url);
      expect(restarted.warnings).toEqual([]);
      expect(again).toEqual([]);
      expect((await restarted.thread.tools()).map((t) => t.name)).toEqual(["mcp__guarded__guarded-echo"]);
      expect(server.issuedTokens).toHaveLength(1);
      await second.closeAll();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 30_000);

  test("without an OAuth folder a protected server fails to start, naming the refusal", async () => {
    await using server = await startMcpOAuthServer();
    const opened: URL[] = [];
    const hub = hubWith(undefined, opened, []);
    const { warnings } = await startThread(hub, tmpdir(), server.url);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toStartWith('MCP server "guarded" could not start:');
    expect(opened).toEqual([]);
    expect(server.refused).toBeGreaterThan(0);
    await hub.closeAll();
  }, 30_000);
});
