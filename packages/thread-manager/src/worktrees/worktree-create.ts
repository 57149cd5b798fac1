/**
 * Making a thread's worktree (`thread/start {worktree}`) and reopening it on resume. The
 * worktree of the repository containing `cwd` goes to `<agent dir>/worktrees/<repo-id>/
 * <name>` on a new branch `knightcode/<name>` from `baseRef` (default `HEAD`); the thread
 * works in the same relative folder inside it. The main checkout is never touched: a
 * dirty one is only reported, the worktree starts from the commit.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { git, gitMaybe } from "./git-runner.ts";
import { readOwner, type WorktreeRecord, writeOwner, writeRepositoryNote } from "./ownership.ts";
import { currentBranch, isDirty, requireRepository, resolveCommit } from "./repository.ts";
import { withRepositoryLock } from "./repository-lock.ts";
import { refuse } from "./worktree-errors.ts";
import { copyIncludedFiles } from "./worktree-include.ts";
import { branchOf, SNAPSHOT_PREFIX, worktreeName } from "./worktree-names.ts";

export interface CreateWorktreeRequest {
  cwd: string;
  agentDir: string;
  name?: string;
  baseRef?: string;
}

export interface CreatedWorktree {
  record: WorktreeRecord;
  /** The thread's cwd inside the worktree. */
  cwd: string;
  /** The main checkout had uncommitted changes (they are not in the worktree). */
  sourceDirty: boolean;
  /** Repository paths copied in through `.knightcode/worktreeinclude`. */
  copied: string[];
  /** The checkout the worktree was made from (its top level). */
  sourceTree: string;
}

/** The folder every worktree of the repository with this id lives in. */
export function worktreesRoot(agentDir: string): string {
  return join(agentDir, "worktrees");
}

export async function createWorktree(request: CreateWorktreeRequest): Promise<CreatedWorktree> {
  const repo = await requireRepository(request.cwd);
  const name = worktreeName(request.name);
  const repoDir = join(worktreesRoot(request.agentDir), repo.repoId);
  const path = join(repoDir, name);
  const branch = branchOf(name);
  if (existsSync(path)) throw refuse("worktreeExists", `A worktree named ${name} exists: ${path}`, { path });
  if (await resolveCommit(repo.topLevel, `refs/heads/${branch}`))
    throw refuse("worktreeExists", `The branch ${branch} exists`, { branch });
  const baseRef = request.baseRef ?? "HEAD";
  const baseCommit = await resolveCommit(repo.topLevel, baseRef);
  if (!baseCommit) throw refuse("unknownBaseRef", `Not a commit: ${baseRef}`, { baseRef });
  const namedBranch =
    request.baseRef !== undefined && (await resolveCommit(repo.topLevel, `refs/heads/${request.baseRef}`))
      ? request.baseRef
      : undefined;
  const sourceBranch = namedBranch ?? (await currentBranch(repo.topLevel));
  writeRepositoryNote(repoDir, repo.commonDir);
  await withRepositoryLock(repo.mainTopLevel, () =>
    git(repo.topLevel, ["worktree", "add", "--quiet", "-b", branch, path, baseCommit]),
  );
  const record: WorktreeRecord = {
    name,
    path,
    branch,
    baseRef,
    baseCommit,
    repository: repo.mainTopLevel,
    createdAt: new Date().toISOString(),
  };
  if (sourceBranch !== undefined) record.sourceBranch = sourceBranch;
  await writeOwner(record);
  const copied = await copyIncludedFiles(repo.topLevel, path);
  const cwd = join(path, repo.relativeCwd);
  mkdirSync(cwd, { recursive: true });
  return { record, cwd, sourceDirty: await isDirty(repo.topLevel), copied, sourceTree: repo.topLevel };
}

/** Records the thread that owns a worktree, once its transcript exists. */
export async function claimWorktree(record: WorktreeRecord, threadId: string): Promise<WorktreeRecord> {
  const claimed = { ...record, threadId };
  await writeOwner(claimed);
  return claimed;
}

/**
 * Makes sure a resumed thread's worktree is there: a deleted folder is made again from
 * its branch (or, after `worktree/remove`, from its snapshot). Says what it did.
 */
export async function reopenWorktree(record: WorktreeRecord): Promise<"present" | "recreated" | "restored"> {
  if (existsSync(join(record.path, ".git")) && readOwner(record.path)) return "present";
  const repo = record.repository;
  return withRepositoryLock(repo, async () => {
    await git(repo, ["worktree", "prune"]);
    let how: "recreated" | "restored";
    if (await resolveCommit(repo, `refs/heads/${record.branch}`)) {
      await git(repo, ["worktree", "add", "--quiet", record.path, record.branch]);
      how = "recreated";
    } else {
      const snapshot = await gitMaybe(repo, [
        "rev-parse",
        "--verify",
        "--quiet",
        `${SNAPSHOT_PREFIX}${record.name}`,
      ]);
      if (!snapshot)
        throw refuse("noWorktree", `Neither the branch ${record.branch} nor a snapshot of it exists`);
      await git(repo, ["worktree", "add", "--quiet", "-b", record.branch, record.path, record.baseCommit]);
      await restoreSnapshot(record.path, snapshot);
      how = "restored";
    }
    await writeOwner(record);
    return how;
  });
}

/**
 * Puts a snapshot (a commit on the branch's last commit holding the uncommitted work)
 * back: the branch moves to the snapshot's parent and its files are checked out, so the
 * uncommitted work is uncommitted again.
 */
export async function restoreSnapshot(path: string, snapshot: string): Promise<void> {
  await git(path, ["reset", "--quiet", "--hard", `${snapshot}^`]);
  // the snapshot's tree into index and files (deletions too), then the index back to HEAD
  await git(path, ["read-tree", "--reset", "-u", snapshot]);
  await git(path, ["reset", "--quiet"]);
}
