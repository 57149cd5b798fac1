/**
 * `worktree/merge`: the worktree's branch into the branch it was made from. Everything is
 * computed with git's object plumbing first (`merge-tree --write-tree`, `commit-tree`),
 * so a conflict is found and refused (`worktreeConflict`, the paths) before any ref, index
 * or file changes. Only then the worktree's uncommitted work becomes a commit on its
 * branch and the source branch moves: through `merge --ff-only` in the checkout that has
 * it checked out (its files follow; git refuses if that would overwrite local changes),
 * else with `update-ref` against the old value.
 *
 * - squash: one commit with the worktree's changes on the source tip.
 * - merge: a merge commit of source tip and branch (a fast-forward when source has not moved).
 * - rebase: each of the branch's commits replayed on the source tip, which moves to the last;
 *   the worktree's branch is reset to it too.
 */
import { git, gitExitOf, gitMaybe } from "./git-runner.ts";
import type { WorktreeRecord } from "./ownership.ts";
import { resolveCommit } from "./repository.ts";
import { commitIdentity, commitTree, snapshotCommit } from "./tree-snapshot.ts";
import { conflict, refuse } from "./worktree-errors.ts";

export type MergeStrategy = "squash" | "merge" | "rebase";

export interface MergeOutcome {
  target: string;
  commit: string;
  commits: number;
  committedChanges: boolean;
}

/** The merged tree of `ours` and `theirs` (merge base `base` when given), or the conflicting paths. */
async function mergeTrees(
  dir: string,
  ours: string,
  theirs: string,
  base?: string,
): Promise<{ tree: string } | { conflicts: string[] }> {
  const args = ["merge-tree", "--write-tree", "--name-only", "-z", "--no-messages"];
  if (base) args.push(`--merge-base=${base}`);
  let out: string;
  try {
    out = await git(dir, [...args, ours, theirs]);
  } catch (error) {
    // exit 1 is a conflict: the tree, then the conflicting paths
    const exit = gitExitOf(error);
    if (exit?.exitCode !== 1) throw error;
    const fields = exit.stdout.split("\0").filter((f) => f !== "");
    return { conflicts: [...new Set(fields.slice(1))] };
  }
  return { tree: out.split("\0")[0]!.trim() };
}

/** The checkout that has `branch` checked out, if any. */
async function checkoutOf(repository: string, branch: string): Promise<string | undefined> {
  const out = await git(repository, ["worktree", "list", "--porcelain"]);
  let path: string | undefined;
  for (const line of out.split("\n")) {
    if (line.startsWith("worktree ")) path = line.slice("worktree ".length);
    if (line === `branch refs/heads/${branch}`) return path;
  }
  return undefined;
}

async function commitsBetween(dir: string, from: string, to: string): Promise<string[]> {
  return (await git(dir, ["rev-list", "--reverse", "--topo-order", "--no-merges", `${from}..${to}`]))
    .split("\n")
    .filter((l) => l !== "");
}

/**
 * Rebases the worktree's branch (its uncommitted work committed first) onto `onto`; on a
 * conflict the rebase is aborted and the branch, index and files are put back as they were.
 */
async function rebaseInPlace(
  record: WorktreeRecord,
  pending: { commit: string; changed: boolean },
  onto: string,
): Promise<string> {
  const head = (await git(record.path, ["rev-parse", "HEAD"])).trim();
  if (pending.changed) await git(record.path, ["reset", "--quiet", pending.commit]);
  const identity = await commitIdentity(record.path);
  try {
    await git(record.path, ["rebase", "--quiet", "--no-autostash", onto], identity);
  } catch (error) {
    const files =
      (await gitMaybe(record.path, ["diff", "--name-only", "--diff-filter=U"]))?.split("\n") ?? [];
    await gitMaybe(record.path, ["rebase", "--abort"]);
    await git(record.path, ["reset", "--quiet", "--hard", pending.commit]);
    await git(record.path, ["reset", "--quiet", head]);
    if (files.length > 0 && files[0] !== "")
      throw conflict(`Rebasing onto ${record.sourceBranch} conflicts`, files);
    throw error;
  }
  return (await git(record.path, ["rev-parse", "HEAD"])).trim();
}

export async function mergeWorktree(
  record: WorktreeRecord,
  strategy: MergeStrategy,
  message: string | undefined,
): Promise<MergeOutcome> {
  const target = record.sourceBranch;
  if (!target)
    throw refuse(
      "sourceBranchMissing",
      "The worktree was made from a detached HEAD; there is no branch to merge into",
    );
  const repo = record.repository;
  const targetTip = await resolveCommit(repo, `refs/heads/${target}`);
  if (!targetTip)
    throw refuse("sourceBranchMissing", `The branch ${target} no longer exists`, { branch: target });
  const subject = message ?? `knightcode: ${record.name}`;
  // the branch as it would be with the worktree's uncommitted work committed (no ref moves yet)
  const pending = await snapshotCommit(record.path, subject);
  const tip = pending.commit;
  let result: string;
  let commits: number;
  if (strategy === "rebase") {
    // the whole change must merge cleanly before anything moves; then the worktree's own
    // branch is rebased in place (git 2.39 has no merge-tree --merge-base to replay
    // commits as objects) and an unexpected conflict of one commit is rolled back
    const whole = await mergeTrees(repo, targetTip, tip);
    if ("conflicts" in whole) throw conflict(`Rebasing onto ${target} would conflict`, whole.conflicts);
    result = await rebaseInPlace(record, pending, targetTip);
    commits = (await commitsBetween(repo, targetTip, result)).length;
  } else {
    const merged = await mergeTrees(repo, targetTip, tip);
    if ("conflicts" in merged) throw conflict(`Merging into ${target} would conflict`, merged.conflicts);
    const isAncestor = (await gitMaybe(repo, ["merge-base", "--is-ancestor", targetTip, tip])) !== undefined;
    if (strategy === "squash") {
      result = await commitTree(repo, merged.tree, [targetTip], subject);
      commits = 1;
    } else if (isAncestor) {
      result = tip;
      commits = (await commitsBetween(repo, targetTip, tip)).length;
    } else {
      result = await commitTree(
        repo,
        merged.tree,
        [targetTip, tip],
        message ?? `Merge ${record.branch} into ${target}`,
      );
      commits = (await commitsBetween(repo, targetTip, tip)).length + 1;
    }
  }
  // nothing has changed so far; from here the refs move
  const checkout = await checkoutOf(repo, target);
  if (checkout) {
    try {
      await git(checkout, ["merge", "--ff-only", "--quiet", result]);
    } catch (error) {
      throw refuse(
        "sourceCheckoutDirty",
        `${checkout} has local changes the merge would overwrite: ${(error as Error).message}`,
        {
          path: checkout,
        },
      );
    }
  } else {
    await git(repo, [
      "update-ref",
      "-m",
      `knightcode: ${strategy} ${record.branch}`,
      `refs/heads/${target}`,
      result,
      targetTip,
    ]);
  }
  if (pending.changed && strategy !== "rebase") await git(record.path, ["reset", "--quiet", tip]);
  return { target, commit: result, commits, committedChanges: pending.changed };
}
