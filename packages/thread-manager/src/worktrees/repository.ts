/**
 * The repository a folder belongs to: its top level, its common git dir (shared by every
 * worktree of it) and the repo-id the server's worktree folders are grouped by. The id is
 * a hash of the common dir's real path, so it is the same from the main checkout and from
 * any of its worktrees, and two clones at different paths never share one.
 */
import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { git, gitMaybe } from "./git-runner.ts";
import { refuse } from "./worktree-errors.ts";

export interface Repository {
  /** The checkout containing the folder asked about (a worktree's own top level inside one). */
  topLevel: string;
  /** The common git dir, real path. */
  commonDir: string;
  /** The main checkout's top level (the common dir's parent for a non-bare repository). */
  mainTopLevel: string;
  repoId: string;
  /** The folder asked about, relative to `topLevel` ("" at the top). */
  relativeCwd: string;
}

/** `<name of the main checkout>-<12 hex of the common dir's hash>`: readable and unique. */
export function repoIdOf(commonDir: string): string {
  const hash = createHash("sha256").update(commonDir).digest("hex").slice(0, 12);
  const name = basename(dirname(commonDir))
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .slice(0, 40);
  return `${name || "repo"}-${hash}`;
}

/**
 * False when neither an existing `cwd` nor any folder above it holds a `.git` entry: git
 * then finds no repository (it runs with none of the `GIT_*` variables that could point
 * it elsewhere, see git-runner.ts), so none needs to start. Every turn asks (its diff's
 * start), and a spawn of git costs the main thread ~2 ms before the model request.
 */
function mayBeInRepository(cwd: string): boolean {
  const start = resolve(cwd);
  if (!existsSync(start)) return true;
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return true;
    if (dirname(dir) === dir) return false;
  }
}

/** The repository containing `cwd`, or undefined outside one. */
export async function findRepository(cwd: string): Promise<Repository | undefined> {
  if (!mayBeInRepository(cwd)) return undefined;
  const out = await gitMaybe(cwd, ["rev-parse", "--show-toplevel", "--git-common-dir"]);
  if (out === undefined) return undefined;
  const [top, common] = out.split("\n");
  if (!top || !common) return undefined;
  const topLevel = realpathSync(top);
  const commonDir = realpathSync(isAbsolute(common) ? common : resolve(cwd, common));
  return {
    topLevel,
    commonDir,
    mainTopLevel: dirname(commonDir),
    repoId: repoIdOf(commonDir),
    relativeCwd: relative(topLevel, realpathSync(cwd)),
  };
}

/** Like `findRepository`, refusing a folder outside any repository. */
export async function requireRepository(cwd: string): Promise<Repository> {
  const repo = await findRepository(cwd);
  if (!repo) throw refuse("notGitRepository", `Not inside a git repository: ${cwd}`);
  return repo;
}

/** The commit a revision names, or undefined. */
export async function resolveCommit(dir: string, rev: string): Promise<string | undefined> {
  return gitMaybe(dir, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`]);
}

/** The branch checked out in `dir` (short name), or undefined when HEAD is detached. */
export async function currentBranch(dir: string): Promise<string | undefined> {
  return gitMaybe(dir, ["symbolic-ref", "--quiet", "--short", "HEAD"]);
}

/** Whether `dir` has uncommitted changes, untracked files included. */
export async function isDirty(dir: string): Promise<boolean> {
  return (await git(dir, ["status", "--porcelain", "--untracked-files=normal"])).trim() !== "";
}
