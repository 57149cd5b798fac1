/**
 * How this CLI starts another copy of itself (the demo's app-server child, the process
 * sandbox, the sandbox helper): the one place that knows whether KnightCode runs as the
 * compiled binary or from source. Inside the binary `import.meta.dir` is the virtual
 * `/$bunfs/root`, so nothing here derives a path from it there; `process.execPath` is the
 * binary itself (compiled) or Bun (from source).
 */
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
 * checkout (sources and node_modules).
 */
export function selfRuntimePaths(): string[] {
  return Bun.isStandaloneExecutable
    ? [process.execPath]
    : [process.execPath, resolve(import.meta.dir, "..", "..", "..")];
}

/**
 * The argv that runs this very invocation again (the same arguments, and from source the
 * same Bun flags): the binary reads its bundled entry itself, from source Bun needs main.ts.
 */
export function selfInvocation(): string[] {
  return Bun.isStandaloneExecutable
    ? [process.execPath, ...process.argv.slice(2)]
    : [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
}

/** The hidden subcommand that runs the sandbox helper (main.ts dispatches it first). */
export const SANDBOX_HELPER_SUBCOMMAND = "__sandbox-helper";

/** How a sandboxed thread starts its helper inside bubblewrap: this program again, as the helper. */
export function sandboxHelperCommand(): { argv: string[]; readable: string[] } {
  return { argv: [...selfCommand(), SANDBOX_HELPER_SUBCOMMAND], readable: selfRuntimePaths() };
}
