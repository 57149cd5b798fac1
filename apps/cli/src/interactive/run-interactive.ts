/** The interactive terminal UI. */
import type { AppServerClient } from "@knightcode/app-server-protocol";
import type { AgentOptions } from "../args.ts";

/** Runs the UI until the user quits; resolves with the exit code. */
export async function runInteractive(
  _client: AppServerClient,
  _cwd: string,
  _options: AgentOptions,
): Promise<number> {
  process.stderr.write("knightcode: the interactive terminal is not built yet; use -p\n");
  return 1;
}
