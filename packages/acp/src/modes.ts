/** ACP session modes are KnightCode's approval modes. */
import type { SessionMode, SessionModeState } from "@agentclientprotocol/sdk";
import type { ApprovalMode } from "@knightcode/app-server-protocol";

/** The modes every session offers, in the order an editor lists them. */
export const SESSION_MODES: readonly SessionMode[] = [
  {
    id: "ask",
    name: "Ask",
    description: "Ask before edits, shell commands and other tools that change things",
  },
  {
    id: "autoEdit",
    name: "Auto edit",
    description: "Edit files without asking; ask before shell and other tools",
  },
  { id: "fullAccess", name: "Full access", description: "Run every tool without asking" },
];

/** Threads without a stored mode run in `ask`, as desktop threads do. */
export const DEFAULT_MODE: ApprovalMode = "ask";

/** True when `id` names a mode. */
export function isApprovalMode(id: string): id is ApprovalMode {
  return SESSION_MODES.some((mode) => mode.id === id);
}

/** The mode state of a session in `current`. */
export function modeState(current: ApprovalMode | undefined): SessionModeState {
  return { currentModeId: current ?? DEFAULT_MODE, availableModes: [...SESSION_MODES] };
}

/**
 * Whether a tool runs without asking in `mode` (the spec's approval table). Used only to
 * report a call as running before its result arrives; the server's gate decides.
 */
export function runsWithoutAsking(mode: ApprovalMode, toolName: string): boolean {
  if (mode === "fullAccess") return true;
  if (["read", "grep", "find", "ls", "ask_user", "submit_plan"].includes(toolName)) return true;
  return mode === "autoEdit" && (toolName === "edit" || toolName === "write");
}
