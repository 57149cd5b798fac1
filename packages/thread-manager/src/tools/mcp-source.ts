/**
 * The built-in tool source of MCP servers: the thread's configured servers (global
 * settings, trusted project settings) and its client's, run through one manager-wide
 * `McpHub` so threads with the same server config and cwd share one process.
 */
import { configuredMcpServers } from "@knightcode/config";
import type { McpHub, McpSampler } from "@knightcode/mcp";
import { ThreadMcpServers, threadServerSpecs } from "@knightcode/mcp/thread-servers";
import type { Warning } from "../shapes.ts";
import type { ThreadToolSource, ToolSourceContext } from "./tool-sources.ts";

/** A thread's MCP servers as a tool source, with the handle `mcpServer/list` reads. */
export interface McpToolSource extends ThreadToolSource {
  servers: ThreadMcpServers;
  /** Replaces the client-given servers (a `thread/resume` with `mcpServers`); resolves with the new problems. */
  setClientServers(mcpServers: ToolSourceContext["mcpServers"]): Promise<Warning[]>;
  /** The client-given servers now in effect. */
  clientServers: ToolSourceContext["mcpServers"];
}

/** Starts a thread's MCP servers; resolves once each is ready or failed. */
export async function createMcpToolSource(
  hub: McpHub,
  context: ToolSourceContext,
  sample?: McpSampler,
): Promise<{ source: McpToolSource; warnings: Warning[] }> {
  const servers = new ThreadMcpServers({
    hub,
    cwd: context.cwd,
    warn: (w) => context.warn(w),
    ...(sample !== undefined ? { sample } : {}),
  });
  const startWith = async (client: ToolSourceContext["mcpServers"]): Promise<Warning[]> => {
    const warnings: Warning[] = [];
    const configured = configuredMcpServers(context.settings.global, context.settings.project, warnings);
    const specs = threadServerSpecs(configured, client, warnings);
    return [...warnings, ...(await servers.start(specs))];
  };
  const source: McpToolSource = {
    servers,
    clientServers: context.mcpServers,
    tools: () => servers.tools(),
    dispose: () => servers.dispose(),
    async setClientServers(mcpServers) {
      source.clientServers = mcpServers;
      return startWith(mcpServers);
    },
  };
  return { source, warnings: await startWith(context.mcpServers) };
}
