/**
 * A checkout's files as git objects without touching the user's index, branches or
 * stash: the working tree (tracked and untracked files, not ignored ones) is added to a
 * private copy of the index (copied so unchanged files are not hashed again) and written
 * as a tree. Commits the server makes (snapshots, merge results) are made from trees with
 * `commit-tree`, under the repository's own identity or, when it has none, KnightCode's.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type GitExtraEnv, git, gitMaybe } from "./git-runner.ts";

/** The tree of `topLevel`'s working files as they are now. */
export async function snapshotTree(topLevel: string): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), "knightcode-tree-"));
  try {
    const index = join(scratch, "index");
    const realIndex = resolve(topLevel, (await git(topLevel, ["rev-parse", "--git-path", "index"])).trim());
    if (existsSync(realIndex)) copyFileSync(realIndex, index);
    const env = { GIT_INDEX_FILE: index };
    await git(topLevel, ["add", "-A", "--", "."], env);
    return (await git(topLevel, ["write-tree"], env)).trim();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The tree of a commit. */
export async function treeOf(dir: string, commit: string): Promise<string> {
  return (await git(dir, ["rev-parse", `${commit}^{tree}`])).trim();
}

/** The repository's identity for commits, or KnightCode's when it has none configured. */
export async function commitIdentity(dir: string): Promise<GitExtraEnv> {
  const name = await gitMaybe(dir, ["config", "user.name"]);
  const email = await gitMaybe(dir, ["config", "user.email"]);
  if (name && email) return {};
  const n = name || "KnightCode";
  const e = email || "knightcode@localhost";
  return { GIT_AUTHOR_NAME: n, GIT_AUTHOR_EMAIL: e, GIT_COMMITTER_NAME: n, GIT_COMMITTER_EMAIL: e };
}

/** A commit object (no ref moves) of `tree` with `parents` and `message`. */
export async function commitTree(
  dir: string,
  tree: string,
  parents: string[],
  message: string,
  extra: GitExtraEnv = {},
): Promise<string> {
  const args = ["commit-tree", tree, ...parents.flatMap((p) => ["-p", p]), "-m", message];
  return (await git(dir, args, { ...(await commitIdentity(dir)), ...extra })).trim();
}

/**
 * `HEAD` plus every uncommitted and untracked change of `topLevel`, as one commit whose
 * parent is `HEAD` (HEAD itself when nothing changed). No ref moves.
 */
export async function snapshotCommit(
  topLevel: string,
  message: string,
): Promise<{ commit: string; changed: boolean }> {
  const head = (await git(topLevel, ["rev-parse", "HEAD"])).trim();
  const tree = await snapshotTree(topLevel);
  if (tree === (await treeOf(topLevel, head))) return { commit: head, changed: false };
  return { commit: await commitTree(topLevel, tree, [head], message), changed: true };
}
