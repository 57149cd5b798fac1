/** Worktree names: validated when given, generated when not; the branch is `knightcode/<name>`. */
import { randomBytes } from "node:crypto";
import { refuse } from "./worktree-errors.ts";

export const WORKTREE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const BRANCH_PREFIX = "knightcode/";
export const SNAPSHOT_PREFIX = "refs/knightcode/snapshots/";

/** The name to use: `given` when it is valid, else a fresh `wt-<8 hex>`. */
export function worktreeName(given: string | undefined): string {
  if (given === undefined) return `wt-${randomBytes(4).toString("hex")}`;
  if (!WORKTREE_NAME.test(given))
    throw refuse(
      "invalidWorktreeName",
      `Worktree names match [a-z0-9][a-z0-9-]{0,63}: ${JSON.stringify(given)}`,
    );
  return given;
}

export function branchOf(name: string): string {
  return `${BRANCH_PREFIX}${name}`;
}
