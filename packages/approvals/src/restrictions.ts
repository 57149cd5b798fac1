import type { ShellKind } from "./grants.ts";
import type { ApprovalMode } from "./modes.ts";
import { toolClass } from "./modes.ts";
import { analyzeShellCommand } from "./shell-prefix.ts";

/** The tool call a restriction looks at. */
export interface GatedCall {
  readonly toolName: string;
  readonly input: unknown;
  readonly mode: ApprovalMode;
  readonly cwd: string;
  /** Set when the tool is a shell. */
  readonly shellKind: ShellKind | null;
}

/** A restriction's verdict: block outright, or force a question even where the mode would allow. */
export type RestrictionVerdict = { action: "block"; reason: string } | { action: "ask"; reason: string };

/** A check that runs before the mode gate (plan mode, a classifier); undefined means no objection. */
export type PreGateRestriction = (call: GatedCall) => RestrictionVerdict | undefined;

/**
 * Plan mode: only reading is allowed. Read-only built-ins pass; a shell passes only
 * when its command is positively recognized as read-only; everything else is blocked.
 */
export function planModeRestriction(): PreGateRestriction {
  return (call) => {
    if (toolClass(call.toolName) === "readOnly") return undefined;
    if (call.shellKind !== null) {
      const command = commandOf(call.input);
      const analysis = command === null ? null : analyzeShellCommand(command, call.shellKind);
      if (analysis?.readOnly === true) return undefined;
      return { action: "block", reason: "Plan mode allows only read-only commands" };
    }
    return { action: "block", reason: `Plan mode does not allow the ${call.toolName} tool` };
  };
}

/**
 * Wraps a classifier (for example a model judging a call risky) as a restriction.
 * A classifier that throws blocks the call: a broken safety check must not wave things through.
 */
export function classifierRestriction(classify: PreGateRestriction): PreGateRestriction {
  return (call) => {
    try {
      return classify(call);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return { action: "block", reason: `Safety check failed: ${detail}` };
    }
  };
}

/** The `command` string of a shell tool's input, or null when it has none. */
export function commandOf(input: unknown): string | null {
  if (typeof input !== "object" || input === null) return null;
  const command = (input as { command?: unknown }).command;
  return typeof command === "string" ? command : null;
}
