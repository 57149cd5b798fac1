/**
 * The MCP servers an editor lists in `session/new`/`load`/`resume`, as the app server's
 * `mcpServers` (keyed by name). Entries the server's schema would refuse — an SSE server
 * (no such transport), a name that is empty, too long or repeated, more than the server
 * takes — are left out and reported instead, so one odd entry never fails the session.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import type { McpServerConfig, McpServers } from "@knightcode/app-server-protocol";

/** Most servers one thread takes (the protocol's `maxProperties`). */
export const MAX_MCP_SERVERS = 64;

/** An entry that could not be passed on, and why. */
export interface McpServerRefusal {
  name: string;
  reason: string;
}

/** The translation of an editor's list. */
export interface McpTranslation {
  servers: McpServers;
  refused: McpServerRefusal[];
}

const NAME = /^[^\u0000-\u001f]{1,128}$/;

function pairs(list: readonly { name: string; value: string }[] | undefined): Record<string, string> {
  return Object.fromEntries((list ?? []).map((pair) => [pair.name, pair.value]));
}

function config(server: McpServer): McpServerConfig | string {
  if ("type" in server && server.type === "sse")
    return "SSE MCP servers are not supported; use stdio or HTTP";
  if ("url" in server) return { url: server.url, headers: pairs(server.headers) };
  return { command: server.command, args: [...server.args], env: pairs(server.env) };
}

/** Translates an editor's MCP server list. */
export function translateMcpServers(list: readonly McpServer[]): McpTranslation {
  const servers: McpServers = {};
  const refused: McpServerRefusal[] = [];
  for (const server of list) {
    const name = server.name;
    if (!NAME.test(name)) {
      refused.push({ name, reason: "the name must be 1 to 128 characters without control characters" });
      continue;
    }
    if (Object.hasOwn(servers, name)) {
      refused.push({ name, reason: "another server of the list has the same name" });
      continue;
    }
    if (Object.keys(servers).length >= MAX_MCP_SERVERS) {
      refused.push({ name, reason: `a session takes at most ${MAX_MCP_SERVERS} MCP servers` });
      continue;
    }
    const translated = config(server);
    if (typeof translated === "string") refused.push({ name, reason: translated });
    else servers[name] = translated;
  }
  return { servers, refused };
}

/** What the server says about one of a thread's MCP servers (`mcpServer/list`). */
export interface ListedMcpServer {
  name: string;
  state?: string;
  error?: string;
}

/** Why an MCP server from the editor is not used by a server that cannot start them. */
export const MCP_NOT_HONOURED = "this KnightCode server cannot start MCP servers yet";

/**
 * The servers passed on that do not run: from the server's `mcpServer/list` when it has
 * that method (failed and stopped ones, with its reason), else all of them, since a
 * server without the method does not start them.
 */
export function mcpServersNotRunning(
  passed: readonly string[],
  listed: readonly ListedMcpServer[] | undefined,
): McpServerRefusal[] {
  if (listed === undefined) return passed.map((name) => ({ name, reason: MCP_NOT_HONOURED }));
  return passed.flatMap((name): McpServerRefusal[] => {
    const found = listed.find((server) => server.name === name);
    if (found === undefined) return [{ name, reason: "the server does not list it" }];
    if (found.state !== "failed" && found.state !== "stopped") return [];
    return [{ name, reason: found.error ? `${found.state}: ${found.error}` : found.state }];
  });
}
