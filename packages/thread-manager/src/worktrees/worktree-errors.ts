/**
 * Worktree failures with their wire codes (the package-errors rule of architecture.md):
 * a conflict is `worktreeConflict` with the paths in `data.files`; every other refusal is
 * `invalidParams` with a `data.reason` a client can switch on.
 */
import { AppServerError } from "@knightcode/app-server-protocol";

/** Why a worktree request was refused. */
export type WorktreeRefusal =
  | "notGitRepository"
  | "invalidWorktreeName"
  | "worktreeExists"
  | "unknownBaseRef"
  | "noWorktree"
  | "notOwned"
  | "dirtyWorktree"
  | "sourceBranchMissing"
  | "sourceCheckoutDirty"
  | "noRemote"
  | "noTurn";

export function refuse(
  reason: WorktreeRefusal,
  message: string,
  data: Record<string, unknown> = {},
): AppServerError {
  return new AppServerError("invalidParams", message, { reason, ...data });
}

export function conflict(message: string, files: string[]): AppServerError {
  return new AppServerError("worktreeConflict", message, { files });
}
