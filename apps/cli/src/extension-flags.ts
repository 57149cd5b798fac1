/**
 * The terminal agent's second look at its command line: once the first thread's
 * extensions registered their flags (the `extensionFlags` of its start or resume
 * result), the flags the parser kept aside either resolve or are a usage error, and
 * each word after a bare flag is known to be a string flag's value or prompt text.
 */
import { type AppServerClient, type ExtensionFlag, resolveFlagArgs } from "@knightcode/app-server-protocol";
import type { AgentOptions } from "./args.ts";
import { discardStartedThread, type OpenedThread } from "./open-thread.ts";

/** The prompt that is left, or the first bad flag. */
export type SettledFlags = { prompt: string | undefined } | { error: string };

/**
 * Settles the flags against the opened thread; on a bad flag a thread started just now is
 * deleted again, so the refused command line leaves no session behind.
 */
export async function settleFlagsOf(
  client: AppServerClient,
  opened: OpenedThread,
  options: Pick<AgentOptions, "extensionFlags" | "promptWords">,
): Promise<SettledFlags> {
  const settled = settleExtensionFlags(options, opened.extensionFlags);
  if ("error" in settled) await discardStartedThread(client, opened);
  return settled;
}

/** Resolves the kept flags against what the thread's extensions registered. */
export function settleExtensionFlags(
  options: Pick<AgentOptions, "extensionFlags" | "promptWords">,
  registered: readonly ExtensionFlag[] | undefined,
): SettledFlags {
  const types = new Map((registered ?? []).map((flag) => [flag.name, flag.type]));
  const resolved = resolveFlagArgs(options.extensionFlags, (name) => types.get(name));
  const problem = resolved.problems[0];
  if (problem !== undefined) return { error: problem };
  const taken = new Set<number>();
  for (const index of resolved.consumedNext) {
    const word = options.extensionFlags[index]?.nextWord;
    if (word !== undefined) taken.add(word);
  }
  const words = options.promptWords.filter((_, index) => !taken.has(index));
  return { prompt: words.length === 0 ? undefined : words.join(" ") };
}
