/**
 * Which `knightcode` the end-to-end tests run: the sources (Bun plus `apps/cli/src/main.ts`)
 * or, when `KNIGHTCODE_BIN` names one, a compiled binary. Every harness that starts a
 * `knightcode` child builds its argv here, so each test is written once and `bun run test`
 * runs it against both (scripts/test-binary.ts sets the variable for the second pass).
 */
import { isAbsolute, join, resolve } from "node:path";

/** The CLI's entry point in this checkout (test code always runs from the sources). */
export const KNIGHTCODE_MAIN = join(import.meta.dir, "..", "..", "..", "apps", "cli", "src", "main.ts");

/**
 * The compiled binary under test, absolute (children run in other directories), or
 * undefined when the run targets the sources.
 */
export const KNIGHTCODE_BIN: string | undefined = binaryFromEnv(process.env.KNIGHTCODE_BIN);

/** The target's name, for test titles and messages. */
export const KNIGHTCODE_TARGET: "sources" | "binary" = KNIGHTCODE_BIN === undefined ? "sources" : "binary";

function binaryFromEnv(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  return isAbsolute(value) ? value : resolve(value);
}

/** The argv that runs `knightcode <args>` on the selected target. */
export function knightcodeArgv(args: readonly string[] = []): string[] {
  return KNIGHTCODE_BIN === undefined
    ? [process.execPath, KNIGHTCODE_MAIN, ...args]
    : [KNIGHTCODE_BIN, ...args];
}
