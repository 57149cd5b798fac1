/**
 * Turn checkpoints for `thread/undo` (the terminal's `/undo`), in git repositories only,
 * taken by the server where the thread's files are. Before each turn the working
 * tree (tracked and untracked files, plus the ignored files `ignored-files.ts` picks) is
 * written as a git tree object through a private index file, so the user's index,
 * branches and stash stay untouched. Undo compares the checkpoint with the tree as it is
 * now and puts back exactly the paths that differ: changed and deleted files get their
 * old content, files that did not exist are removed. The files the turn's edit/write
 * calls reported (`fileChanges`) are checked too: one no checkpoint holds is removed when
 * the turn created it, and otherwise reported as not restored. Outside a git repository
 * no checkpoint is taken.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { FileChange, RestoredPath, UnrestoredPath } from "@knightcode/app-server-protocol";
import { type GitExtraEnv, git } from "../worktrees/git-runner.ts";
import { findRepository } from "../worktrees/repository.ts";
import { chooseIgnoredFiles, repoPath } from "./ignored-files.ts";

/** What one undo did. */
export interface UndoReport {
  turnId: string;
  restored: RestoredPath[];
  notRestored: UnrestoredPath[];
}

/** The working files (tracked and untracked, not ignored) as a tree, and the repository's top level. */
export interface WorkingTree {
  topLevel: string;
  tree: string;
}

/** The state before one turn, and what that turn's tool calls reported changing. */
interface Checkpoint {
  turnId: string;
  /** Resolves with the tree, or undefined when it could not be written. */
  tree: Promise<string | undefined>;
  /** The ignored files (repository paths) the tree holds. */
  ignored: string[];
  /** Absolute path -> the kind of the turn's first change to it. */
  changes: Map<string, FileChange["kind"]>;
}

interface Repo {
  root: string;
  realIndex: string;
}

/** Paths in arguments are paths, never globs or pathspec magic. */
const LITERAL = "--literal-pathspecs";
/** Paths per git invocation, well under the argument length limit. */
const PATHS_PER_CALL = 200;

/** git with a private index file (the runner passes on no other `GIT_` variable of the server's). */
function privateIndex(indexFile: string): GitExtraEnv {
  return { GIT_INDEX_FILE: indexFile };
}

function nulFields(output: string): string[] {
  return output.split("\0").filter((f) => f !== "");
}

/** Runs `args` followed by `paths`, a chunk at a time; the outputs joined. */
async function withPaths(root: string, env: GitExtraEnv, args: string[], paths: string[]): Promise<string> {
  let out = "";
  for (let i = 0; i < paths.length; i += PATHS_PER_CALL) {
    out += await git(root, [LITERAL, ...args, "--", ...paths.slice(i, i + PATHS_PER_CALL)], env);
  }
  return out;
}

/** The checkpoints of one thread, in its working directory. */
export class TurnCheckpoints {
  private readonly stack: Checkpoint[] = [];
  /** How many turns undo went back so far (their checkpoints are used up). */
  undone = 0;
  /** Every file a turn's edit/write calls changed (absolute), held by later checkpoints. */
  private readonly touched = new Set<string>();
  private repo: Promise<Repo | undefined> | undefined;
  /** The private index files' folder, made with the first checkpoint (most threads take none). */
  private scratchDir: string | undefined;

  constructor(readonly cwd: string) {}

  private get scratch(): string {
    this.scratchDir ??= mkdtempSync(join(tmpdir(), "knightcode-checkpoint-"));
    return this.scratchDir;
  }

  private open() {
    this.repo ??= (async () => {
      const found = await findRepository(this.cwd);
      if (found === undefined) return undefined;
      const root = found.topLevel;
      const realIndex = resolve(root, (await git(root, ["rev-parse", "--git-path", "index"])).trim());
      return { root, realIndex };
    })();
    return this.repo;
  }

  /** Whether checkpoints can be taken here. */
  async available(): Promise<boolean> {
    return (await this.open()) !== undefined;
  }

  /**
   * The working tree as a tree object, hashed through a copy of the user's index (fast
   * for tracked files). `ignored` says which ignored files to add: a fixed list, or
   * "choose" (the touched files and the ignored files outside ignored folders).
   */
  private async snapshot(
    repo: Repo,
    ignored: string[] | "choose",
  ): Promise<{ tree: string; ignored: string[]; unignored?: string }> {
    const index = join(this.scratch, "index");
    // the ignored files git lists against the user's own index (read, never written), while
    // the private copy takes everything else: the two walks run side by side
    const listing = ignored === "choose" ? this.listIgnored(repo) : undefined;
    if (existsSync(repo.realIndex)) copyFileSync(repo.realIndex, index);
    else rmSync(index, { force: true });
    const env = privateIndex(index);
    await git(repo.root, ["add", "-A", "--verbose", "."], env);
    // the same walk gives the tree without ignored files, which turn diffs start from
    const unignored = listing !== undefined ? (await git(repo.root, ["write-tree"], env)).trim() : undefined;
    const forced =
      listing !== undefined
        ? chooseIgnoredFiles(
            repo.root,
            [...this.touched].flatMap((p) => repoPath(repo.root, p) ?? []),
            await listing,
          )
        : (ignored as string[]).filter((p) => existsSync(join(repo.root, p)));
    // verbose: simple-git waits an extra 50 ms after a git command that printed nothing
    if (forced.length > 0) await withPaths(repo.root, env, ["add", "-f", "--verbose"], forced);
    const tree = (await git(repo.root, ["write-tree"], env)).trim();
    return { tree, ignored: forced, ...(unignored === undefined ? {} : { unignored }) };
  }

  /** Untracked ignored files, and ignored folders as one `dir/` entry each (not walked). */
  private async listIgnored(repo: Repo): Promise<string[]> {
    const args = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"];
    return nulFields(await git(repo.root, [LITERAL, ...args]));
  }

  /**
   * Records the state before turn `turnId`; changes reported from now on belong to it.
   * Resolves with the working tree without ignored files (undefined outside a repository).
   */
  async take(turnId: string): Promise<WorkingTree | undefined> {
    const checkpoint: Checkpoint = {
      turnId,
      tree: Promise.resolve(undefined),
      ignored: [],
      changes: new Map(),
    };
    let working: WorkingTree | undefined;
    const taken = (async () => {
      const repo = await this.open();
      if (repo === undefined) return undefined;
      const snap = await this.snapshot(repo, "choose");
      checkpoint.ignored = snap.ignored;
      if (snap.unignored !== undefined) working = { topLevel: repo.root, tree: snap.unignored };
      return snap.tree;
    })();
    checkpoint.tree = taken.catch(() => undefined);
    this.stack.push(checkpoint);
    try {
      if ((await taken) === undefined) this.drop(checkpoint);
    } catch (error) {
      this.drop(checkpoint);
      throw error;
    }
    return working;
  }

  private drop(checkpoint: Checkpoint): void {
    const at = this.stack.indexOf(checkpoint);
    if (at >= 0) this.stack.splice(at, 1);
  }

  /** Notes the `fileChanges` a tool call of the running turn reported. */
  noteChanges(changes: readonly FileChange[]): void {
    const current = this.stack.at(-1);
    for (const change of changes) {
      this.touched.add(change.path);
      if (current !== undefined && !current.changes.has(change.path))
        current.changes.set(change.path, change.kind);
    }
  }

  /** Number of turns that can be undone. */
  get depth(): number {
    return this.stack.length;
  }

  /** Restores the newest checkpoint; undefined when there is none. */
  async undo(): Promise<UndoReport | undefined> {
    const repo = await this.open();
    const checkpoint = this.stack.pop();
    if (repo === undefined || checkpoint === undefined) return undefined;
    this.undone++;
    const before = await checkpoint.tree;
    if (before === undefined) return undefined;
    // the same ignored files as the checkpoint: one it does not hold must not look created
    const now = (await this.snapshot(repo, checkpoint.ignored)).tree;
    const diff = await git(repo.root, [
      "diff-tree",
      "-r",
      "-z",
      "--no-renames",
      "--name-status",
      before,
      now,
    ]);
    const fields = nulFields(diff);
    const restore: string[] = [];
    const removed: string[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const status = fields[i]!;
      const path = fields[i + 1]!;
      if (status === "A") removed.push(path);
      else restore.push(path);
    }
    const notRestored = await this.uncovered(
      repo,
      checkpoint,
      before,
      new Set([...restore, ...removed]),
      removed,
    );
    for (const path of removed) rmSync(join(repo.root, path), { force: true });
    if (restore.length > 0) {
      const index = join(this.scratch, "restore-index");
      const env = privateIndex(index);
      await git(repo.root, ["read-tree", before], env);
      await withPaths(repo.root, env, ["checkout-index", "-f"], restore);
    }
    return {
      turnId: checkpoint.turnId,
      restored: [
        ...restore.map((path) => ({ path, action: "restored" as const })),
        ...removed.map((path) => ({ path, action: "removed" as const })),
      ],
      notRestored,
    };
  }

  /**
   * The turn's reported changes that neither tree accounts for. A file the turn created
   * joins `removed`; any other is reported, as no checkpoint holds its old content.
   */
  private async uncovered(
    repo: Repo,
    checkpoint: Checkpoint,
    before: string,
    inDiff: Set<string>,
    removed: string[],
  ): Promise<UnrestoredPath[]> {
    const notRestored: UnrestoredPath[] = [];
    const candidates = new Map<string, FileChange["kind"]>();
    for (const [path, kind] of checkpoint.changes) {
      const rel = repoPath(repo.root, path);
      if (rel === undefined) notRestored.push({ path, reason: "outsideRepository" });
      else if (!inDiff.has(rel)) candidates.set(rel, kind);
    }
    if (candidates.size === 0) return notRestored;
    const held = new Set(
      nulFields(
        await withPaths(
          repo.root,
          {},
          ["ls-tree", "-r", "-z", "--name-only", before],
          [...candidates.keys()],
        ),
      ),
    );
    for (const [rel, kind] of candidates) {
      if (held.has(rel)) continue;
      if (kind === "add") {
        if (existsSync(join(repo.root, rel))) removed.push(rel);
      } else notRestored.push({ path: rel, reason: "notCheckpointed" });
    }
    return notRestored;
  }

  /** Removes the private index files. */
  dispose(): void {
    if (this.scratchDir !== undefined) rmSync(this.scratchDir, { recursive: true, force: true });
    this.scratchDir = undefined;
  }
}
