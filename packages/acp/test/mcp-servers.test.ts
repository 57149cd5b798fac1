import { describe, expect, test } from "bun:test";
import {
  MAX_MCP_SERVERS,
  MCP_NOT_HONOURED,
  mcpServersNotRunning,
  translateMcpServers,
} from "../src/mcp-servers.ts";

describe("MCP servers from the editor", () => {
  test("stdio and HTTP entries become the server's configs keyed by name", () => {
    expect(
      translateMcpServers([
        { name: "fs", command: "/bin/fs", args: ["-v"], env: [{ name: "A", value: "1" }] },
        { type: "http", name: "web", url: "https://x/mcp", headers: [{ name: "Authorization", value: "t" }] },
      ]),
    ).toEqual({
      servers: {
        fs: { command: "/bin/fs", args: ["-v"], env: { A: "1" } },
        web: { url: "https://x/mcp", headers: { Authorization: "t" } },
      },
      refused: [],
    });
  });

  test("SSE, bad or repeated names and entries past the limit are refused with a reason", () => {
    const many = Array.from({ length: MAX_MCP_SERVERS + 1 }, (_, i) => ({
      name: `s${i}`,
      command: "/bin/x",
      args: [],
      env: [],
    }));
    const { servers, refused } = translateMcpServers([
      { type: "sse", name: "old", url: "http://x", headers: [] },
      { name: "", command: "/bin/x", args: [], env: [] },
      { name: "a\u0001b", command: "/bin/x", args: [], env: [] },
      ...many,
      { name: "s0", command: "/bin/y", args: [], env: [] },
    ]);
    expect(Object.keys(servers).length).toBe(MAX_MCP_SERVERS);
    expect(refused.map((r) => r.name)).toEqual(["old", "", "a\u0001b", `s${MAX_MCP_SERVERS}`, "s0"]);
  });

  test("without the server's list every passed server is not running; with it, only failed, stopped and missing ones", () => {
    expect(mcpServersNotRunning(["a"], undefined)).toEqual([{ name: "a", reason: MCP_NOT_HONOURED }]);
    expect(
      mcpServersNotRunning(
        ["a", "b", "c", "d"],
        [
          { name: "a", state: "ready" },
          { name: "b", state: "failed", error: "spawn ENOENT" },
          { name: "c", state: "stopped" },
        ],
      ),
    ).toEqual([
      { name: "b", reason: "failed: spawn ENOENT" },
      { name: "c", reason: "stopped" },
      { name: "d", reason: "the server does not list it" },
    ]);
  });
});
