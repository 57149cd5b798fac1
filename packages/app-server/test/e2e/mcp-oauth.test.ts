/**
 * OAuth for a streamable-HTTP MCP server through a real `knightcode app-server` child:
 * the testkit's OAuth-protected server answers 401, the child sends the authorization
 * URL to the desktop's opener (a stand-in `xdg-open` on PATH that follows the redirect,
 * as a browser whose user approves), the loopback redirect brings the code, and the
 * server's tools are listed. The token file sits in the agent dir at 0600; the token is
 * in no other file of the agent dir and not on stderr.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMcpOAuthServer } from "@knightcode/testkit/mcp-oauth-server";
import { E2E_TIMEOUT, MOCK_MODEL, TARGETS } from "./harness.ts";

/** A folder with an `xdg-open` that fetches its URL (following redirects), as a browser would. */
function browserStandIn(): string {
  const bin = mkdtempSync(join(tmpdir(), "knightcode-browser-"));
  writeFileSync(join(bin, "follow.ts"), "await fetch(process.argv[2]!);\n");
  writeFileSync(
    join(bin, "xdg-open"),
    `#!/bin/sh\nexec "${process.execPath}" "${join(bin, "follow.ts")}" "$1"\n`,
  );
  chmodSync(join(bin, "xdg-open"), 0o755);
  return bin;
}

// stdio only: the opener is found on the server process's PATH, which an in-process server shares with the test runner
const stdio = TARGETS.find((t) => t.name === "stdio")!;

describe("[stdio] MCP OAuth", () => {
  test(
    "thread/start signs in to an OAuth-protected server through the loopback flow; mcpServer/list shows its tools; the token file is 0600",
    async () => {
      await using oauth = await startMcpOAuthServer();
      const bin = browserStandIn();
      try {
        await using server = await stdio.start({ env: { PATH: `${bin}:${process.env.PATH ?? ""}` } });
        const { thread, warnings } = await server.client.request("thread/start", {
          cwd: server.agent.cwd,
          model: MOCK_MODEL,
          mcpServers: { guarded: { url: oauth.url, startTimeoutMs: 20_000 } },
        });
        expect(warnings).toEqual([]);
        const { servers } = await server.client.request("mcpServer/list", { threadId: thread.id });
        expect(servers).toEqual([
          {
            name: "guarded",
            transport: "http",
            origin: "thread",
            state: "ready",
            tools: [
              {
                name: "mcp__guarded__guarded-echo",
                serverToolName: "guarded-echo",
                description: "Echoes its text, behind OAuth",
              },
            ],
          },
        ]);
        const dir = join(server.agent.agentDir, "mcp-oauth");
        const files = readdirSync(dir);
        expect(files).toHaveLength(1);
        expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);
        const token = oauth.issuedTokens[0]!;
        expect(readFileSync(join(dir, files[0]!), "utf8")).toContain(token);
        // no other file of the agent dir (settings, sessions) holds it
        const elsewhere = readdirSync(server.agent.agentDir, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile() && !join(entry.parentPath, entry.name).startsWith(dir))
          .filter((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8").includes(token));
        expect(elsewhere).toEqual([]);
        expect(server.stderr()).toContain("[mcp:guarded] sign in to continue:");
        expect(server.stderr()).not.toContain(token);
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    },
    E2E_TIMEOUT,
  );
});
