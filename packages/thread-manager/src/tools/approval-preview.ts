/**
 * What an approval request shows besides the tool's input: a file tool's change as it
 * would happen (asked of the tool itself, so it reads through the thread's own file
 * operations, sandbox included), a shell command with the folder it runs in, or where an
 * extension or MCP tool comes from. Computed before the user is asked.
 */
import type { ToolCallInfo } from "@knightcode/agent";
import type { ApprovalPreview } from "@knightcode/app-server-protocol";
import { shellKindOf } from "@knightcode/approvals";

/** The preview of one gated call, or undefined when there is nothing to add to its input. */
export async function approvalPreview(call: ToolCallInfo, cwd: string): Promise<ApprovalPreview | undefined> {
  const { tool, args } = call;
  if (tool.preview !== undefined) {
    const change = await tool.preview(args);
    return { type: "fileChange", ...change };
  }
  if (shellKindOf(tool.name) !== null && typeof args.command === "string") {
    return { type: "command", command: args.command, cwd };
  }
  const origin = tool.origin;
  if (origin === undefined) return undefined;
  return origin.kind === "mcp"
    ? { type: "tool", source: "mcp", server: origin.server, tool: origin.tool }
    : { type: "tool", source: "extension", server: origin.path, tool: tool.name };
}
