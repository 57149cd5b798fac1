import { isMcpToolName } from "./mcp-tools.ts";

/** The three approval modes a thread can be in. */
export type ApprovalMode = "ask" | "autoEdit" | "fullAccess";

/** Every valid mode, in order of increasing trust. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ["ask", "autoEdit", "fullAccess"];

/** Tools that never need approval in any mode: they only read or talk to the user. */
export const ALWAYS_ALLOWED_TOOLS: readonly string[] = [
  "read",
  "grep",
  "find",
  "ls",
  "ask_user",
  "submit_plan",
];

/** Built-in tools that change files; they ask only in `ask` mode. */
export const EDIT_TOOLS: readonly string[] = ["edit", "write"];

/** How the mode table classifies a tool. */
export type ToolClass = "readOnly" | "edit" | "other";

/**
 * Classifies a tool name for the mode table; shells, extension and MCP tools are all
 * `other`. An MCP tool is never read-only, whatever its server says about itself.
 */
export function toolClass(toolName: string): ToolClass {
  if (isMcpToolName(toolName)) return "other";
  if (ALWAYS_ALLOWED_TOOLS.includes(toolName)) return "readOnly";
  if (EDIT_TOOLS.includes(toolName)) return "edit";
  return "other";
}

/** What the mode table says about a tool before grants, restrictions or workspace checks. */
export function modeVerdict(mode: ApprovalMode, toolName: string): "allow" | "ask" {
  const kind = toolClass(toolName);
  if (kind === "readOnly" || mode === "fullAccess") return "allow";
  if (kind === "edit" && mode === "autoEdit") return "allow";
  return "ask";
}

/** True when `value` is one of the three modes. */
export function isApprovalMode(value: unknown): value is ApprovalMode {
  return typeof value === "string" && (APPROVAL_MODES as readonly string[]).includes(value);
}

/** Restores a stored mode; anything invalid (missing, misspelt, wrong type) restores as `ask`. */
export function restoreApprovalMode(stored: unknown): ApprovalMode {
  return isApprovalMode(stored) ? stored : "ask";
}

/** The mode a new thread starts in: desktop threads ask, terminal in-process threads have full access. */
export function defaultApprovalMode(clientKind: "desktop" | "terminal"): ApprovalMode {
  return clientKind === "terminal" ? "fullAccess" : "ask";
}
