import type { ApprovalDecision, ApprovalRequest } from "./decisions.ts";
import { findCoveringGrant, type SessionGrants, type ShellKind } from "./grants.ts";
import { type ApprovalMode, modeVerdict, toolClass } from "./modes.ts";
import { nodeRealpath } from "./node-realpath.ts";
import {
  commandOf,
  type GatedCall,
  type PreGateRestriction,
  type RestrictionVerdict,
} from "./restrictions.ts";
import { shellPrefix } from "./shell-prefix.ts";
import { SHELL_TOOLS, shellKindOf } from "./shell-tools.ts";
import { isToolPathOutsideWorkspace, type RealpathFn } from "./workspace-path.ts";

export { SHELL_TOOLS, shellKindOf };

/** Everything the gate needs to judge one tool call. */
export interface ToolCallGateInput {
  readonly mode: ApprovalMode;
  readonly toolName: string;
  readonly input: unknown;
  /** The thread's working directory; edits resolving outside it are flagged. */
  readonly cwd: string;
  readonly grants: SessionGrants;
  /**
   * The shell dialect of an extension's shell tool. Defaults from the tool name; a tool
   * named like a shell (`bash`, `PowerShell`, ...) stays a shell whatever is passed here.
   */
  readonly shellKind?: ShellKind | null;
  /** Plan mode, classifiers: run in order before the mode table; the first block wins. */
  readonly restrictions?: readonly PreGateRestriction[];
  /** Injected for tests; defaults to the real filesystem. */
  readonly realpath?: RealpathFn;
  /**
   * The home directory the edit tools expand a leading `~` to. Without it a `~` path
   * cannot be placed, so it is treated as outside the workspace.
   */
  readonly homeDir?: string;
}

/** The gate's verdict on one tool call. */
export type GateResult =
  | { action: "allow" }
  | { action: "block"; reason: string }
  | { action: "ask"; request: ApprovalRequest };

/**
 * Decides whether a tool call runs, is blocked, or needs the user: restrictions first,
 * then the mode table, the outside-workspace check for edits, and session grants.
 */
export function gateToolCall(gate: ToolCallGateInput): GateResult {
  const shellKind = gate.shellKind ?? shellKindOf(gate.toolName);
  const call: GatedCall = {
    toolName: gate.toolName,
    input: gate.input,
    mode: gate.mode,
    cwd: gate.cwd,
    shellKind,
  };

  let forcedReason: string | undefined;
  for (const restriction of gate.restrictions ?? []) {
    const verdict = runRestriction(restriction, call);
    if (verdict?.action === "block") return { action: "block", reason: verdict.reason };
    if (verdict?.action === "ask" && forcedReason === undefined) forcedReason = verdict.reason;
  }

  if (gate.mode === "fullAccess" && forcedReason === undefined) return { action: "allow" };

  let workspaceReason: string | undefined;
  if (shellKind === null && toolClass(gate.toolName) === "edit") {
    workspaceReason = outsideWorkspaceReason(
      gate.input,
      gate.cwd,
      gate.realpath ?? nodeRealpath,
      gate.homeDir,
    );
  }

  if (forcedReason === undefined && workspaceReason === undefined) {
    if (modeVerdict(gate.mode, gate.toolName) === "allow") return { action: "allow" };
    if (coveredByGrant(gate, shellKind)) return { action: "allow" };
  }

  const reason = forcedReason ?? workspaceReason;
  // A grant offered here would not take effect next time (the reason still gates), so none is offered.
  const grantable = reason === undefined;
  const decisions: ApprovalDecision[] = ["accept"];
  let prefix: string[] | null = null;
  if (shellKind !== null) {
    const command = commandOf(gate.input);
    prefix = grantable && command !== null ? shellPrefix(command, shellKind) : null;
    if (prefix !== null) decisions.push("acceptPrefixForSession");
  } else if (grantable) {
    decisions.push("acceptForSession");
  }
  decisions.push("decline", "cancel");

  const request: ApprovalRequest = {
    toolName: gate.toolName,
    decisions,
    ...(reason !== undefined ? { reason } : {}),
    ...(prefix !== null ? { prefix } : {}),
    ...(shellKind !== null ? { shellKind } : {}),
  };
  return { action: "ask", request };
}

function runRestriction(restriction: PreGateRestriction, call: GatedCall): RestrictionVerdict | undefined {
  try {
    return restriction(call);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { action: "block", reason: `Restriction failed: ${detail}` };
  }
}

function coveredByGrant(gate: ToolCallGateInput, shellKind: ShellKind | null): boolean {
  if (shellKind === null) return gate.grants.tools.includes(gate.toolName);
  const command = commandOf(gate.input);
  return command !== null && findCoveringGrant(gate.grants, command, shellKind) !== undefined;
}

function outsideWorkspaceReason(
  input: unknown,
  cwd: string,
  realpath: RealpathFn,
  homeDir: string | undefined,
): string | undefined {
  const path = typeof input === "object" && input !== null ? (input as { path?: unknown }).path : undefined;
  if (typeof path !== "string" || path.trim().length === 0) return "The target path could not be determined";
  if (isToolPathOutsideWorkspace(path, cwd, realpath, homeDir))
    return `Writes outside the workspace: ${path}`;
  return undefined;
}
