/**
 * Diffs of a checkout's working files against a tree: the turn's start, the worktree's
 * base commit, or the closest commit on a remote. Both sides are trees (the working
 * files through `snapshotTree`), so untracked files are in the diff; binary files are
 * named ("Binary files ... differ") and never inlined; a diff past `maxBytes` is cut at a
 * file boundary and says so (`truncated`), the whole file list still given.
 */
import { git, gitMaybe } from "./git-runner.ts";
import { snapshotTree, treeOf } from "./tree-snapshot.ts";
import { refuse } from "./worktree-errors.ts";

export type DiffFileKind = "add" | "modify" | "delete";

export interface DiffFile {
  path: string;
  kind: DiffFileKind;
  /** Lines; 0 for a binary file. */
  additions: number;
  deletions: number;
  binary?: boolean;
}

export interface WorkingDiff {
  diff: string;
  files: DiffFile[];
  truncated: boolean;
}

/** Past this a diff is cut (whole files kept); the server pages what is left under it. */
export const MAX_DIFF_BYTES = 8 * 1024 * 1024;

const KINDS: Record<string, DiffFileKind> = { A: "add", M: "modify", D: "delete", T: "modify" };

/** The files changed between two trees, with line counts. */
async function changedFiles(dir: string, from: string, to: string): Promise<DiffFile[]> {
  const status = await git(dir, ["diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to]);
  const numstat = await git(dir, ["diff-tree", "-r", "-z", "--no-renames", "--numstat", from, to]);
  const counts = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  for (const row of numstat.split("\0")) {
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(row);
    if (!match) continue;
    const binary = match[1] === "-";
    counts.set(match[3]!, {
      additions: binary ? 0 : Number(match[1]),
      deletions: binary ? 0 : Number(match[2]),
      binary,
    });
  }
  const fields = status.split("\0").filter((f) => f !== "");
  const files: DiffFile[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const path = fields[i + 1]!;
    const count = counts.get(path) ?? { additions: 0, deletions: 0, binary: false };
    const file: DiffFile = {
      path,
      kind: KINDS[fields[i]!] ?? "modify",
      additions: count.additions,
      deletions: count.deletions,
    };
    if (count.binary) file.binary = true;
    files.push(file);
  }
  return files;
}

/** Cuts a unified diff at the last file boundary under `maxBytes`. */
function bounded(diff: string, maxBytes: number): { diff: string; truncated: boolean } {
  if (Buffer.byteLength(diff) <= maxBytes) return { diff, truncated: false };
  let cut = Buffer.from(diff).subarray(0, maxBytes).toString("utf8");
  const boundary = cut.lastIndexOf("\ndiff --git ");
  cut = boundary >= 0 ? cut.slice(0, boundary + 1) : "";
  return { diff: cut, truncated: true };
}

/** The diff from tree `from` to tree `to`. */
export async function diffTrees(
  dir: string,
  from: string,
  to: string,
  maxBytes = MAX_DIFF_BYTES,
): Promise<WorkingDiff> {
  const [raw, files] = await Promise.all([
    git(dir, ["diff-tree", "-r", "-p", "--no-renames", "--no-color", "--no-ext-diff", from, to]),
    changedFiles(dir, from, to),
  ]);
  // diff-tree prints the pair of trees first when given trees; the patch starts at "diff --git"
  const start = raw.indexOf("diff --git ");
  return { ...bounded(start >= 0 ? raw.slice(start) : "", maxBytes), files };
}

/** The working files of `topLevel` against tree `from`. */
export async function diffWorkingTree(
  topLevel: string,
  from: string,
  maxBytes = MAX_DIFF_BYTES,
): Promise<WorkingDiff> {
  return diffTrees(topLevel, from, await snapshotTree(topLevel), maxBytes);
}

/** The tree of a commit. */
export { treeOf };

/**
 * The closest commit of HEAD's history that is on a remote (Codex's `gitDiffToRemote`):
 * HEAD when it is pushed, else the parent of the oldest commit no remote has.
 */
export async function closestRemoteCommit(topLevel: string): Promise<string> {
  const remotes = await gitMaybe(topLevel, ["for-each-ref", "--format=%(objectname)", "refs/remotes"]);
  if (!remotes) throw refuse("noRemote", "No remote-tracking branch to compare with (git fetch first?)");
  const local = (await git(topLevel, ["rev-list", "--reverse", "--topo-order", "HEAD", "--not", "--remotes"]))
    .split("\n")
    .filter((l) => l !== "");
  if (local.length === 0) return (await git(topLevel, ["rev-parse", "HEAD"])).trim();
  const parent = await gitMaybe(topLevel, ["rev-parse", "--verify", "--quiet", `${local[0]}^`]);
  if (!parent) throw refuse("noRemote", "No commit of HEAD's history is on a remote");
  return parent;
}
