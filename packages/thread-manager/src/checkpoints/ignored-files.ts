/**
 * Which git-ignored files a `/undo` checkpoint holds. `git add -A` leaves ignored files
 * out, yet an agent edits some of them (`.env`, `config.local.json`). A checkpoint
 * therefore also force-adds the ignored files that lie outside ignored folders (git
 * lists an ignored folder such as `node_modules/` as one entry without walking it) and
 * every file an earlier turn's edit/write calls changed, within a size budget, so
 * taking one stays cheap.
 */
import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";

/** A file larger than this is not force-added (configs are small; artifacts are not). */
export const MAX_IGNORED_FILE_BYTES = 1024 * 1024;
/** At most this many ignored files per checkpoint… */
export const MAX_IGNORED_FILES = 1000;
/** …and at most this many bytes of them. */
export const MAX_IGNORED_TOTAL_BYTES = 16 * 1024 * 1024;

/**
 * `path` relative to the repository root with `/` separators, or undefined when outside
 * it. git names the root with symlinks resolved; the tools report the path as the thread's
 * cwd spells it, so a path outside the root is tried once more through its real folder.
 */
export function repoPath(root: string, path: string): string | undefined {
  const inside = (candidate: string) => {
    const rel = relative(root, candidate);
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return undefined;
    return sep === "/" ? rel : rel.split(sep).join("/");
  };
  const direct = inside(path);
  if (direct !== undefined) return direct;
  try {
    return inside(join(realpathSync(dirname(path)), basename(path)));
  } catch {
    return undefined;
  }
}

/**
 * The ignored files to force-add: `preferred` first (files turns changed), then the
 * ignored files git listed, keeping regular files and symlinks within the budget.
 * Entries ending in `/` are ignored folders, never walked.
 */
export function chooseIgnoredFiles(root: string, preferred: Iterable<string>, listed: string[]): string[] {
  const chosen: string[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  for (const path of [...preferred, ...listed]) {
    if (chosen.length >= MAX_IGNORED_FILES) break;
    if (path.endsWith("/") || seen.has(path)) continue;
    seen.add(path);
    let size: number;
    try {
      const info = lstatSync(join(root, path));
      if (!info.isFile() && !info.isSymbolicLink()) continue;
      size = info.size;
    } catch {
      continue;
    }
    if (size > MAX_IGNORED_FILE_BYTES || bytes + size > MAX_IGNORED_TOTAL_BYTES) continue;
    bytes += size;
    chosen.push(path);
  }
  return chosen;
}
