/** The worktree settings (`worktrees.keep`, `worktree.setup`) and what in an item counts as a file change. */

/** How many clean, merged worktrees stay when `worktrees.keep` is not set (as many as the Codex app keeps). */
export const DEFAULT_WORKTREES_KEEP = 15;

/**
 * `worktrees.keep` from settings: how many clean, merged worktrees stay; the rest read
 * stale and start-up removes them. Anything but a whole number >= 0 is the default.
 */
export function worktreesKeep(settings: Record<string, unknown> | null | undefined): number {
  const section = settings?.worktrees;
  if (typeof section !== "object" || section === null) return DEFAULT_WORKTREES_KEEP;
  const keep = (section as Record<string, unknown>).keep;
  return typeof keep === "number" && Number.isInteger(keep) && keep >= 0 ? keep : DEFAULT_WORKTREES_KEEP;
}

/** Whether a completed item is a tool call that reported file changes. */
export function changedFiles(item: unknown): boolean {
  if (typeof item !== "object" || item === null) return false;
  const changes = (item as { fileChanges?: unknown }).fileChanges;
  return Array.isArray(changes) && changes.length > 0;
}
