/**
 * What a linked worktree's git needs from outside it. A worktree's `.git` is a file
 * (`gitdir: <common>/worktrees/<id>`); its objects, refs, config and hooks live in the
 * main repository's common git dir, which the sandbox would otherwise not show, so every
 * git command in the worktree failed.
 *
 * The common dir is shown read-only as a whole (hooks and config stay out of reach: they
 * run on the host the next time the user runs git there). A worktree the server made
 * (its admin dir holds the ownership record) may also commit on its own branch: the
 * object store, its own admin dir and the folder of its branch's ref and reflog are
 * writable, with the admin dir's files that steer git or the server (the ownership
 * record, `gitdir`, `commondir`, `config.worktree`, `locked`) and the other refs and
 * reflogs already in those folders read-only on top. With `allowGitWrites` the common
 * dir is writable like a project's own `.git` then is.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/**
 * The record the thread manager writes into the admin dir of a worktree it made
 * (`packages/thread-manager/src/worktrees/ownership.ts`, `OWNER_FILE`).
 */
export const OWNER_RECORD = "knightcode-owner.json";

/** Files of a worktree's admin dir that must not change from inside. */
const STEERING_FILES = [OWNER_RECORD, "gitdir", "commondir", "config.worktree", "locked"];

/** Host paths to mount for the linked worktrees among the writable roots. */
export interface LinkedGitMounts {
  /** Shown read-only first (the common dirs). */
  readable: string[];
  /** Then writable, on top of them. */
  writable: string[];
  /** Last, read-only on top of the writable ones. */
  readOnly: string[];
}

/** The mounts for every writable root whose `.git` is a worktree's `gitdir:` file. */
export function linkedGitMounts(roots: readonly string[], allowGitWrites: boolean): LinkedGitMounts {
  const mounts: LinkedGitMounts = { readable: [], writable: [], readOnly: [] };
  for (const root of roots) {
    const admin = worktreeAdminDir(join(root, ".git"));
    if (admin === undefined) continue;
    const common = commonDir(admin);
    if (common === undefined || !isDir(common)) continue;
    if (allowGitWrites) {
      mounts.writable.push(common);
      continue;
    }
    mounts.readable.push(common);
    if (existsSync(join(admin, OWNER_RECORD))) addOwnBranch(mounts, admin, common);
  }
  return mounts;
}

/** The writable parts (and what stays read-only within them) of a server-made worktree. */
function addOwnBranch(mounts: LinkedGitMounts, admin: string, common: string): void {
  // An absent config.worktree could be created from inside and read by the host's git
  // (core.fsmonitor runs a program): an empty one is made so it can be mounted read-only.
  if (!existsSync(join(admin, "config.worktree"))) writeFileSync(join(admin, "config.worktree"), "");
  mounts.writable.push(join(common, "objects"), admin);
  mounts.readOnly.push(...STEERING_FILES.map((file) => join(admin, file)).filter((p) => existsSync(p)));
  const info = join(common, "objects", "info");
  if (isDir(info)) mounts.readOnly.push(info);
  const branch = headBranch(admin);
  if (branch === undefined) return;
  for (const base of [common, join(common, "logs")]) {
    const ref = join(base, branch);
    const folder = dirname(ref);
    // git creates the folder itself when it can; inside it cannot, so it exists first
    mkdirSync(folder, { recursive: true });
    mounts.writable.push(folder);
    for (const entry of readdirSync(folder))
      if (join(folder, entry) !== ref) mounts.readOnly.push(join(folder, entry));
  }
}

/** The admin dir a `.git` file names (`gitdir: …`), or undefined for a folder or no `.git`. */
function worktreeAdminDir(dotGit: string): string | undefined {
  if (statSync(dotGit, { throwIfNoEntry: false })?.isFile() !== true) return undefined;
  const match = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"));
  if (!match?.[1]) return undefined;
  const admin = resolve(dirname(dotGit), match[1].trim());
  return isDir(admin) ? admin : undefined;
}

/** The common git dir an admin dir's `commondir` names (relative to the admin dir). */
function commonDir(admin: string): string | undefined {
  const file = join(admin, "commondir");
  if (!existsSync(file)) return undefined;
  const named = readFileSync(file, "utf8").trim();
  return isAbsolute(named) ? named : resolve(admin, named);
}

/** `refs/heads/<branch>` when the worktree's HEAD is on a branch. */
function headBranch(admin: string): string | undefined {
  const head = readFileSync(join(admin, "HEAD"), "utf8").trim();
  const match = /^ref: (refs\/heads\/\S+)$/.exec(head);
  return match?.[1];
}

const isDir = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
