import { lstatSync, realpathSync } from "node:fs";
import type { RealpathFn } from "./workspace-path.ts";

/**
 * `RealpathFn` backed by the real filesystem: null for a missing path, throws for
 * anything else. A dangling symlink throws too: writing through it creates the file at
 * the link's destination, wherever that is, so "missing" would be the wrong answer.
 */
export const nodeRealpath: RealpathFn = (path) => {
  try {
    return realpathSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && isSymlink(path)) {
      throw new Error(`Dangling symbolic link: ${path}`, { cause: error });
    }
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
};

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
