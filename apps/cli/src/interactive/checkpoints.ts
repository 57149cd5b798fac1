/**
 * Turn checkpoints for `/undo`, in git repositories only. Before each turn the working
 * tree (tracked and untracked files, minus what .gitignore excludes) is written as a
 * git tree object through a private index file, so the user's index, branches and
 * stash stay untouched. Undo compares the checkpoint with the tree as it is now and puts
 * back exactly the paths that differ: changed and deleted files get their old content,
 * files that did not exist are removed. Outside a git repository no checkpoint is taken.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { SimpleGit } from "simple-git";

/** One restored path and what happened to it. */
export interface RestoredPath {
  path: string;
  action: "restored" | "removed";
}

/** Variables git needs to run; the rest of the environment does not reach a checkpoint. */
const PASSED_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "XDG_CONFIG_HOME"];

/** The environment for git with a private index (simple-git guards every other `GIT_` key). */
function gitEnv(indexFile: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of PASSED_ENV) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  env.GIT_INDEX_FILE = indexFile;
  return env;
}

/** The checkpoints of one working directory. */
export class TurnCheckpoints {
  private readonly stack: string[] = [];
  private repo: Promise<{ git: SimpleGit; root: string; realIndex: string } | undefined> | undefined;
  private readonly scratch = mkdtempSync(join(tmpdir(), "knightcode-checkpoint-"));

  constructor(private readonly cwd: string) {}

  private open() {
    this.repo ??= (async () => {
      // simple-git loads with the first checkpoint, not at start-up
      const { simpleGit } = await import("simple-git");
      const git = simpleGit(this.cwd);
      if (!(await git.checkIsRepo().catch(() => false))) return undefined;
      const root = (await git.revparse(["--show-toplevel"])).trim();
      const realIndex = resolve(this.cwd, (await git.revparse(["--git-path", "index"])).trim());
      return { git: simpleGit({ baseDir: root, allowEnvironment: ["GIT_INDEX_FILE"] }), root, realIndex };
    })();
    return this.repo;
  }

  /** Whether checkpoints can be taken here. */
  async available(): Promise<boolean> {
    return (await this.open()) !== undefined;
  }

  /** The working tree as a tree object, hashed through a copy of the user's index (fast for tracked files). */
  private async snapshot(): Promise<string | undefined> {
    const repo = await this.open();
    if (repo === undefined) return undefined;
    const index = join(this.scratch, "index");
    if (existsSync(repo.realIndex)) copyFileSync(repo.realIndex, index);
    else rmSync(index, { force: true });
    const git = repo.git.env(gitEnv(index));
    await git.raw(["add", "-A", "."]);
    return (await git.raw(["write-tree"])).trim();
  }

  /** Records the state before a turn. */
  async take(): Promise<void> {
    const tree = await this.snapshot();
    if (tree !== undefined) this.stack.push(tree);
  }

  /** Number of turns that can be undone. */
  get depth(): number {
    return this.stack.length;
  }

  /** Restores the newest checkpoint; undefined when there is none. */
  async undo(): Promise<RestoredPath[] | undefined> {
    const repo = await this.open();
    const before = this.stack.pop();
    if (repo === undefined || before === undefined) return undefined;
    const now = await this.snapshot();
    if (now === undefined) return undefined;
    const diff = await repo.git.raw(["diff-tree", "-r", "-z", "--no-renames", "--name-status", before, now]);
    const fields = diff.split("\0").filter((f) => f !== "");
    const restore: string[] = [];
    const removed: string[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const status = fields[i]!;
      const path = fields[i + 1]!;
      if (status === "A") removed.push(path);
      else restore.push(path);
    }
    for (const path of removed) rmSync(join(repo.root, path), { force: true });
    if (restore.length > 0) {
      const index = join(this.scratch, "restore-index");
      const git = repo.git.env(gitEnv(index));
      await git.raw(["read-tree", before]);
      await git.raw(["checkout-index", "-f", "--", ...restore]);
    }
    return [
      ...restore.map((path) => ({ path, action: "restored" as const })),
      ...removed.map((path) => ({ path, action: "removed" as const })),
    ];
  }

  /** Removes the private index files. */
  dispose(): void {
    rmSync(this.scratch, { recursive: true, force: true });
  }
}
