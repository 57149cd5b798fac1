/**
 * The sandbox helper as this package's tests start it: Bun and the helper script of this
 * checkout, wherever the checkout sits (the CLI gives its own, see apps/cli self-command.ts).
 */
import { join, resolve } from "node:path";
import type { SandboxHelperCommand } from "../src/index.ts";

/** The checkout's root: sources and node_modules, which the helper needs to read. */
export const CHECKOUT = resolve(import.meta.dir, "..", "..", "..");

/** Bun running `src/helper-main.ts`, with Bun and the checkout readable inside. */
export const SOURCE_HELPER: SandboxHelperCommand = {
  argv: [process.execPath, join(import.meta.dir, "..", "src", "helper-main.ts")],
  readable: [process.execPath, CHECKOUT],
};
