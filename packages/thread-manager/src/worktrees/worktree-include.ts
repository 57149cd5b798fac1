/**
 * `.knightcode/worktreeinclude`: files a new worktree gets copied from the source checkout
 * although git does not carry them (`.env` files and the like). The file has gitignore
 * syntax, so git itself does the matching: `ls-files --others --ignored --exclude-from`
 * lists the untracked files (ignored ones included) its patterns select.
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { git } from "./git-runner.ts";

export const INCLUDE_FILE = ".knightcode/worktreeinclude";

/** Copies the matching files from `sourceTop` into `worktreeTop`; returns their repository paths. */
export async function copyIncludedFiles(sourceTop: string, worktreeTop: string): Promise<string[]> {
  const includeFile = join(sourceTop, INCLUDE_FILE);
  if (!existsSync(includeFile)) return [];
  const out = await git(sourceTop, [
    "ls-files",
    "-z",
    "--others",
    "--ignored",
    `--exclude-from=${includeFile}`,
  ]);
  const paths = out.split("\0").filter((p) => p !== "");
  for (const path of paths) {
    const target = join(worktreeTop, path);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(sourceTop, path), target);
  }
  return paths;
}
