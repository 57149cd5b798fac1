import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temp directory removed when disposed (`await using dir = tempDir()`). */
export function tempDir(): { path: string; [Symbol.asyncDispose](): Promise<void> } {
  const path = mkdtempSync(join(tmpdir(), "kc-session-store-"));
  return {
    path,
    async [Symbol.asyncDispose]() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}
