/** How this CLI starts another copy of itself (the demo's app-server child). */
import { join } from "node:path";

/**
 * The argv prefix that runs `knightcode` again: the executable alone when it is the
 * compiled binary (its bundled main.ts is not a file on disk), Bun plus main.ts from source.
 */
export function selfCommand(): string[] {
  return Bun.isStandaloneExecutable
    ? [process.execPath]
    : [process.execPath, join(import.meta.dir, "main.ts")];
}
