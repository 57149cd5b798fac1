/**
 * The worktrees the server owns: every `<agent dir>/worktrees/<repo-id>/<name>` folder
 * with an ownership record, with its size on disk, dirty and unmerged state, and whether
 * it is stale (its thread is gone, or it is clean, merged and older than the newest
 * `keep`). At start-up each known repository is pruned (`git worktree prune`: metadata of
 * folders that are gone); what start-up does with the stale ones is `ThreadWorktrees.sweep`.
 */
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { gitMaybe } from "./git-runner.ts";
import { readOwner, readRepositoryNote, type WorktreeRecord } from "./ownership.ts";
import { isDirty, resolveCommit } from "./repository.ts";
import { withRepositoryLock } from "./repository-lock.ts";
import { worktreesRoot } from "./worktree-create.ts";

export interface ListedWorktree extends WorktreeRecord {
  sizeBytes: number;
  dirty: boolean;
  unmerged: boolean;
  stale: boolean;
  /** Clean, merged and older than the newest `keep` such: start-up removes it. */
  beyondKeep: boolean;
}

/** Bytes of the files under `dir` (no symlinks followed); `.git` (a file in a worktree) included. */
export function diskSize(dir: string): number {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(current);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(current, name);
      const info = lstatSync(path, { throwIfNoEntry: false });
      if (!info) continue;
      if (info.isDirectory()) stack.push(path);
      else total += info.size;
    }
  }
  return total;
}

/** Every owned worktree folder (records only), optionally of one repo-id. */
export function ownedWorktrees(agentDir: string, repoId?: string): WorktreeRecord[] {
  const root = worktreesRoot(agentDir);
  if (!existsSync(root)) return [];
  const repoIds = repoId ? [repoId] : readdirSync(root);
  const out: WorktreeRecord[] = [];
  for (const id of repoIds) {
    const repoDir = join(root, id);
    if (!existsSync(repoDir)) continue;
    for (const name of readdirSync(repoDir)) {
      if (name.startsWith(".")) continue;
      const record = readOwner(join(repoDir, name));
      if (record) out.push(record);
    }
  }
  return out;
}

async function isUnmerged(record: WorktreeRecord): Promise<boolean> {
  if (!record.sourceBranch) return true;
  const target = await resolveCommit(record.repository, `refs/heads/${record.sourceBranch}`);
  if (!target) return true;
  return (
    (await gitMaybe(record.repository, ["merge-base", "--is-ancestor", record.branch, target])) === undefined
  );
}

/** The owned worktrees with their state; `threadExists` says whether a record's thread is still there. */
export async function listWorktrees(
  agentDir: string,
  options: { repoId?: string; keep?: number; threadExists: (threadId: string) => Promise<boolean> },
): Promise<ListedWorktree[]> {
  const records = ownedWorktrees(agentDir, options.repoId).sort((a, b) =>
    b.createdAt.localeCompare(a.createdAt),
  );
  const listed: ListedWorktree[] = [];
  let cleanMerged = 0;
  for (const record of records) {
    const dirty = await isDirty(record.path);
    const unmerged = await isUnmerged(record);
    const orphaned = record.threadId !== undefined && !(await options.threadExists(record.threadId));
    const beyondKeep = !dirty && !unmerged && ++cleanMerged > (options.keep ?? Number.POSITIVE_INFINITY);
    listed.push({
      ...record,
      sizeBytes: diskSize(record.path),
      dirty,
      unmerged,
      stale: orphaned || beyondKeep,
      beyondKeep,
    });
  }
  return listed;
}

/** Start-up: prune every known repository's gone worktrees; returns the paths git dropped. */
export async function pruneKnownRepositories(agentDir: string): Promise<string[]> {
  const root = worktreesRoot(agentDir);
  if (!existsSync(root)) return [];
  const pruned: string[] = [];
  for (const id of readdirSync(root)) {
    const commonDir = readRepositoryNote(join(root, id));
    if (!commonDir || !existsSync(commonDir)) continue;
    // `prune --verbose` reports on stderr, which the runner does not return: what git
    // dropped is what its worktree list no longer names afterwards
    const dropped = await withRepositoryLock(dirname(commonDir), async () => {
      const before = await worktreePaths(commonDir);
      await gitMaybe(commonDir, ["worktree", "prune"]);
      const after = new Set(await worktreePaths(commonDir));
      return before.filter((path) => !after.has(path));
    });
    pruned.push(...dropped);
  }
  return pruned;
}

/** The folders `git worktree list` names (the main checkout's too). */
async function worktreePaths(dir: string): Promise<string[]> {
  const out = (await gitMaybe(dir, ["worktree", "list", "--porcelain"])) ?? "";
  return out
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
}
