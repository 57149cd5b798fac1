/** The worktree settings (`worktrees.keep`, `worktree.setup`) and what in an item counts as a file change. */

/** `worktrees.keep` from settings: how many clean, merged worktrees stay before the rest read stale. */
export function worktreesKeep(settings: Record<string, unknown> | null | undefined): number | undefined {
  const section = settings?.worktrees;
  if (typeof section !== "object" || section === null) return undefined;
  const keep = (section as Record<string, unknown>).keep;
  return typeof keep === "number" && Number.isInteger(keep) && keep >= 0 ? keep : undefined;
}

/** Whether a completed item is a tool call that reported file changes. */
export function changedFiles(item: unknown): boolean {
  if (typeof item !== "object" || item === null) return false;
  const changes = (item as { fileChanges?: unknown }).fileChanges;
  return Array.isArray(changes) && changes.length > 0;
}
