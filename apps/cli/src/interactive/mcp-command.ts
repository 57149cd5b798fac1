/** `/mcp`: the thread's MCP servers from `mcpServer/list`: where each comes from, its state and tools. */
import type { McpServerStatus } from "@knightcode/app-server-protocol";
import type { InteractiveApp } from "./interactive-app.ts";
import { style } from "./ui/style.ts";

/** One server's lines: name, transport, origin and state, then its error or its tools. */
export function serverLines(server: McpServerStatus): string[] {
  const state =
    server.state === "ready"
      ? style.success(server.state)
      : server.state === "failed"
        ? style.error(server.state)
        : style.muted(server.state);
  const lines = [
    `  ${style.bold(server.name)} ${style.muted(`${server.transport} · ${server.origin}`)} ${state}`,
  ];
  if (server.error !== undefined) lines.push(`    ${style.error(server.error)}`);
  if (server.tools.length > 0) lines.push(`    ${style.muted(server.tools.map((t) => t.name).join(", "))}`);
  return lines;
}

/** Shows the servers of the open thread. */
export async function showMcpServers(app: InteractiveApp, threadId: string): Promise<void> {
  const { servers } = await app.client.request("mcpServer/list", { threadId });
  if (servers.length === 0) {
    app.view.note(style.muted("No MCP servers are configured for this thread."));
    return;
  }
  app.view.note([style.bold("MCP servers"), ...servers.flatMap(serverLines)].join("\n"));
}
