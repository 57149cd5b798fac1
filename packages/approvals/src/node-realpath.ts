import { realpathSync } from "node:fs";
import type { RealpathFn } from "./workspace-path.ts";

/** `RealpathFn` backed by the real filesystem: null for a missing path, throws for anything else. */
export const nodeRealpath: RealpathFn = (path) => {
  try {
    return realpathSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
};
