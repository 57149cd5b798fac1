/**
 * Tools a thread gets beyond the environment's own: MCP servers (built in) and, through
 * `ThreadManagerOptions.toolSources`, anything else that adds per-thread tools. A source
 * is made when the thread loads, asked for its tools before every model request (so it
 * can refresh them), and disposed when the thread unloads.
 */
import type { AnyAgentTool } from "@knightcode/agent";
import type { McpServers } from "@knightcode/app-server-protocol";
import type { Warning } from "../shapes.ts";

/** A per-thread supplier of tools. */
export interface ThreadToolSource {
  /** The tools as they are now; awaited before each model request. */
  tools(): Promise<readonly AnyAgentTool[]>;
  /** Releases what the source holds (server processes, modules). */
  dispose(): Promise<void>;
}

/** What a source is built from. */
export interface ToolSourceContext {
  threadId: string;
  cwd: string;
  /** The project's real path as trust was decided for it. */
  projectDir: string;
  trusted: boolean;
  /** Global and (trusted only) project settings as read at load. */
  settings: { global: Record<string, unknown> | null; project: Record<string, unknown> | null };
  /** MCP servers the protocol client passed for this thread (`thread/start`, `thread/resume`, `thread/fork`). */
  mcpServers: McpServers | undefined;
  /** A problem after load; subscribers get it as a `warning`. */
  warn(warning: Warning): void;
}

/** Builds a thread's source at load; its warnings join the start/resume warnings. */
export type ThreadToolSourceFactory = (
  context: ToolSourceContext,
) => Promise<{ source: ThreadToolSource; warnings: Warning[] }>;

/**
 * The turn's tools: the environment's, then each source's in order. A name already
 * taken keeps its first tool; a source that fails is skipped with a warning.
 */
export async function collectTools(
  base: readonly AnyAgentTool[],
  sources: readonly ThreadToolSource[],
  warn: (warning: Warning) => void,
): Promise<AnyAgentTool[]> {
  const tools = [...base];
  const names = new Set(base.map((tool) => tool.name));
  const lists = await Promise.all(
    sources.map((source) =>
      source.tools().catch((error: unknown) => {
        warn({ source: "server", message: `A tool source failed: ${(error as Error)?.message ?? error}` });
        return [] as readonly AnyAgentTool[];
      }),
    ),
  );
  for (const list of lists) {
    for (const tool of list) {
      if (names.has(tool.name)) continue;
      names.add(tool.name);
      tools.push(tool);
    }
  }
  return tools;
}
