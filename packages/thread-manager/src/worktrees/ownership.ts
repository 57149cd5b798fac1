/**
 * Which worktrees the server made. The record sits in git's own administrative folder of
 * the worktree (`<common dir>/worktrees/<id>/knightcode-owner.json`), so it lives and dies
 * with git's metadata: a worktree someone else made has none and is never removed, and a
 * pruned worktree takes its record along. Each repo-id folder under the agent dir also
 * names its repository (`.repository`), so start-up can prune a repository whose worktree
 * folders are already gone.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { SessionWorktree } from "@knightcode/session-store";
import { git } from "./git-runner.ts";

export const OWNER_FILE = "knightcode-owner.json";
export const REPOSITORY_FILE = ".repository";

/** What the server knows about a worktree it made: what the thread's header keeps, plus its owner. */
export interface WorktreeRecord extends SessionWorktree {
  threadId?: string;
  createdAt: string;
}

/** git's administrative folder of the worktree at `path`. */
export async function adminDirOf(path: string): Promise<string> {
  return resolve(path, (await git(path, ["rev-parse", "--git-dir"])).trim());
}

export async function writeOwner(record: WorktreeRecord): Promise<void> {
  writeFileSync(join(await adminDirOf(record.path), OWNER_FILE), `${JSON.stringify(record, null, 2)}\n`);
}

/** The record of the worktree at `path`, or undefined when the server did not make it. */
export function readOwner(path: string): WorktreeRecord | undefined {
  try {
    const dotGit = readFileSync(join(path, ".git"), "utf8");
    const match = /^gitdir: (.+)$/m.exec(dotGit);
    if (!match) return undefined;
    const file = join(resolve(path, match[1]!.trim()), OWNER_FILE);
    if (!existsSync(file)) return undefined;
    return JSON.parse(readFileSync(file, "utf8")) as WorktreeRecord;
  } catch {
    return undefined;
  }
}

/** Remembers which repository a repo-id folder belongs to. */
export function writeRepositoryNote(repoDir: string, commonDir: string): void {
  mkdirSync(repoDir, { recursive: true });
  writeFileSync(join(repoDir, REPOSITORY_FILE), `${commonDir}\n`);
}

export function readRepositoryNote(repoDir: string): string | undefined {
  try {
    return readFileSync(join(repoDir, REPOSITORY_FILE), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}
