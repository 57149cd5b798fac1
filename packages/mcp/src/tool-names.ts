/**
 * Agent names for MCP tools: `mcp__<server>__<tool>`. Providers accept tool names of
 * `[A-Za-z0-9_-]` up to 64 characters (OpenAI's bound, the tighter one), while MCP
 * servers and editors name things freely, so other characters become `_` and an
 * over-long name keeps its start plus a short hash of the whole, which stays unique.
 */
import { MCP_TOOL_PREFIX } from "@knightcode/approvals/mcp-tools";

/** Longest tool name every provider accepts. */
export const MAX_TOOL_NAME_LENGTH = 64;

const UNSAFE = /[^A-Za-z0-9_-]/g;

function shortHash(text: string): string {
  // Bun's native hasher: `node:crypto` costs a server ~5 ms to load at start
  return new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 8);
}

/** A name segment with provider-unsafe characters replaced. */
export function safeSegment(text: string): string {
  return text.replace(UNSAFE, "_") || "_";
}

/** The agent tool name of `tool` on `server`. */
export function mcpToolName(server: string, tool: string): string {
  const name = `${MCP_TOOL_PREFIX}${safeSegment(server)}__${safeSegment(tool)}`;
  const exact = `${server}\u0000${tool}`;
  if (name.length <= MAX_TOOL_NAME_LENGTH) return name;
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - 9)}_${shortHash(exact)}`;
}

/**
 * Names for a server's tools, unique even when two tool names sanitize alike
 * (`a.b` and `a_b`): later ones get a hash suffix.
 */
export function uniqueToolNames(server: string, tools: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const tool of tools) {
    let name = mcpToolName(server, tool);
    if (taken.has(name))
      name = `${name.slice(0, MAX_TOOL_NAME_LENGTH - 9)}_${shortHash(`${server}\u0000${tool}`)}`;
    taken.add(name);
    names.set(tool, name);
  }
  return names;
}
