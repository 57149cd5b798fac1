/**
 * The load warnings for command-line flags no registered flag accepts (unknown, a string
 * flag without a value, a boolean given one). Its own module so the host without a
 * runner (`lazy-host-factory.ts`) words them as the runner's host does.
 */
import {
  type ExtensionFlagArg,
  type ExtensionFlagType,
  resolveFlagArgs,
  type Warning,
} from "@knightcode/app-server-protocol";

/** One warning per flag argument the registered flags (`typeOf`) refuse. */
export function flagArgWarnings(
  args: readonly ExtensionFlagArg[],
  typeOf: (name: string) => ExtensionFlagType | undefined,
): Warning[] {
  return resolveFlagArgs(args, typeOf).problems.map((problem) => ({
    source: "extension",
    message: `Extension flags: ${problem}`,
  }));
}
