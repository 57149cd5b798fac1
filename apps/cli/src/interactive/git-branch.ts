/**
 * The git branch of a folder for the footer, read from `.git/HEAD` (a worktree's `.git`
 * file points at its own HEAD): two small reads, no git process, so the footer can ask
 * again after every turn (a command may have switched branches).
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The branch checked out at or above `cwd`, a short commit for a detached HEAD; undefined outside a repository. */
export function gitBranch(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const head = headFile(join(dir, ".git"));
    if (head !== undefined) {
      const text = readText(head)?.trim();
      if (text === undefined) return undefined;
      const ref = /^ref: refs\/heads\/(.+)$/.exec(text);
      return ref ? ref[1] : text.slice(0, 8);
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** The HEAD file of a `.git` folder, or of the folder a worktree's `.git` file names. */
function headFile(dotGit: string): string | undefined {
  try {
    if (statSync(dotGit).isDirectory()) return join(dotGit, "HEAD");
  } catch {
    return undefined;
  }
  const pointer = /^gitdir: (.+)$/m.exec(readText(dotGit) ?? "");
  return pointer ? join(resolve(dirname(dotGit), pointer[1]!.trim()), "HEAD") : undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
