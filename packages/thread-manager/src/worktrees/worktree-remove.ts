/**
 * Removing a worktree the server made. Before the folder goes, its state is kept as a
 * snapshot ref (`refs/knightcode/snapshots/<name>`): a commit on the branch's last commit
 * holding the uncommitted and untracked files, so `reopenWorktree` (or the user, see
 * docs/worktrees.md) can restore it. A worktree without an ownership record is never
 * removed; a dirty one only with `force`.
 */
import { existsSync } from "node:fs";
import { git } from "./git-runner.ts";
import { readOwner, type WorktreeRecord } from "./ownership.ts";
import { isDirty } from "./repository.ts";
import { withRepositoryLock } from "./repository-lock.ts";
import { commitTree, snapshotTree } from "./tree-snapshot.ts";
import { refuse } from "./worktree-errors.ts";
import { SNAPSHOT_PREFIX } from "./worktree-names.ts";

export interface RemovedWorktree {
  snapshotRef: string;
  snapshotCommit: string;
  path: string;
}

/** The record of a worktree the server owns at `path`, else a refusal. */
export function requireOwned(path: string): WorktreeRecord {
  const record = readOwner(path);
  if (!record)
    throw refuse("notOwned", `The server did not make the worktree at ${path}; it is left alone`, { path });
  return record;
}

export async function removeWorktree(record: WorktreeRecord, force: boolean): Promise<RemovedWorktree> {
  if (!existsSync(record.path)) throw refuse("noWorktree", `The worktree folder is gone: ${record.path}`);
  requireOwned(record.path);
  if (!force && (await isDirty(record.path)))
    throw refuse(
      "dirtyWorktree",
      `The worktree ${record.name} has uncommitted changes (force removes it, keeping a snapshot)`,
      {
        path: record.path,
      },
    );
  const head = (await git(record.path, ["rev-parse", "HEAD"])).trim();
  const tree = await snapshotTree(record.path);
  // always a commit of its own on HEAD, so restoring takes HEAD from its parent
  const snapshotCommit = await commitTree(record.path, tree, [head], `knightcode snapshot of ${record.name}`);
  const snapshotRef = `${SNAPSHOT_PREFIX}${record.name}`;
  await git(record.repository, [
    "update-ref",
    "-m",
    "knightcode: worktree removed",
    snapshotRef,
    snapshotCommit,
  ]);
  await dropWorktree(record);
  return { snapshotRef, snapshotCommit, path: record.path };
}

/** Takes back a worktree just made for a thread that could not be made (nothing in it yet). */
export async function discardWorktree(record: WorktreeRecord): Promise<void> {
  if (!readOwner(record.path)) return;
  await dropWorktree(record);
}

/** The folder, git's metadata of it and its branch (the snapshot ref keeps the commits). */
async function dropWorktree(record: WorktreeRecord): Promise<void> {
  await withRepositoryLock(record.repository, async () => {
    await git(record.repository, ["worktree", "remove", "--force", record.path]);
    await git(record.repository, ["branch", "-D", "--", record.branch]);
  });
}
