import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh temp folder removed when the `await using` scope ends. */
export interface TempDir extends AsyncDisposable {
  path: string;
  /** Path of `name` inside the folder. */
  join(...parts: string[]): string;
}

/** Creates a temp folder for one test. */
export function tempDir(prefix = "agent-test-"): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    join: (...parts) => join(path, ...parts),
    async [Symbol.asyncDispose]() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}
