/**
 * `ThreadResources` of a loaded thread, for a client's first screen: the context files its
 * prompt is built with and the extensions that loaded. The context files come from the
 * thread's prompt-source cache under the key its turns use, so listing them here is the
 * read the first turn would do anyway.
 */
import type { ThreadResources } from "@knightcode/app-server-protocol";
import type { ThreadRuntime } from "./thread-runtime.ts";

/** The thread's context files and loaded extensions; a failed read lists no context files (the turn reports it). */
export async function threadResources(runtime: ThreadRuntime, agentDir: string): Promise<ThreadResources> {
  const sources = await runtime.promptSources
    .get({
      agentDir,
      cwd: runtime.cwd,
      projectDir: runtime.projectDir || runtime.cwd,
      trusted: runtime.trusted,
    })
    .catch(() => undefined);
  return {
    contextFiles: sources?.contextFiles.map((file) => file.path) ?? [],
    extensions: runtime.extensions.loaded?.() ?? [],
  };
}
