/** How this CLI starts another copy of itself (the demo's app-server child, the process sandbox). */
import { join, resolve } from "node:path";

/**
 * The argv prefix that runs `knightcode` again: the executable alone when it is the
 * compiled binary (its bundled main.ts is not a file on disk), Bun plus main.ts from source.
 */
export function selfCommand(): string[] {
  return Bun.isStandaloneExecutable
    ? [process.execPath]
    : [process.execPath, join(import.meta.dir, "main.ts")];
}

/**
 * The files another copy needs to read: the binary alone when compiled, else Bun and the
 * checkout (sources and node_modules). In the binary, `import.meta.dir` is the virtual
 * `/$bunfs/root`, so a path derived from it would name `/`.
 */
export function selfRuntimePaths(): string[] {
  return Bun.isStandaloneExecutable
    ? [process.execPath]
    : [process.execPath, resolve(import.meta.dir, "..", "..", "..")];
}
