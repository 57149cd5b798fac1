/**
 * MCP tools reach the agent as `mcp__<server>__<tool>`. The prefix keeps them apart from
 * the built-ins and shells whatever a server names its tools, so the mode table always
 * reads them as the spec's "MCP tools" row, and `acceptForSession` can be offered.
 */

/** Every MCP tool's agent name starts with this. */
export const MCP_TOOL_PREFIX = "mcp__";

/** True for an agent tool name that came from an MCP server. */
export function isMcpToolName(toolName: string): boolean {
  return typeof toolName === "string" && toolName.startsWith(MCP_TOOL_PREFIX);
}
