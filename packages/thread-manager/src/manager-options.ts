/** The options a ThreadManager is built with. */
import type { AnyAgentTool, ToolOperations } from "@knightcode/agent";
import type { StreamFunction } from "@knightcode/ai";
import type { ExtensionFlagArg } from "@knightcode/app-server-protocol";
import type { McpHub } from "@knightcode/mcp";
import type { SandboxHelperCommand } from "@knightcode/sandbox";
import type { Clock } from "./clock.ts";
import type { ExtensionHostFactory } from "./extensions/extension-hooks.ts";
import type { ModelSource } from "./threads/model-source.ts";
import type { ReplayLimits } from "./threads/replay-buffer.ts";
import type { ToolBackendFactory } from "./tools/tool-backend.ts";
import type { ThreadToolSourceFactory } from "./tools/tool-sources.ts";
import type { CompactionHooks } from "./turns/environment.ts";

/** How a ThreadManager is built; every field has a production default. */
export interface ThreadManagerOptions {
  /** Defaults to `KNIGHTCODE_CODING_AGENT_DIR`, else `~/.knightcode/agent`. */
  agentDir?: string;
  /** `--session-dir`: one flat directory for every thread. */
  sessionDir?: string;
  /** `-e` extension paths, loaded in each thread as explicitly trusted. */
  extensionPaths?: string[];
  /** Flags from the command line for the extensions (`--plan`); each thread's extensions resolve them. */
  extensionFlags?: ExtensionFlagArg[];
  env?: Record<string, string | undefined>;
  /** Time source for idle unloading and turn markers. */
  clock?: Clock;
  idleUnloadMs?: number;
  /** How much of each loaded thread's notification stream is kept for reconnecting clients. */
  replayLimits?: ReplayLimits;
  models?: ModelSource;
  streamFn?: StreamFunction;
  /**
   * The tools each thread's agent gets, given the thread's operations (see `toolBackend`).
   * May answer a promise, so a host can load its tools' modules with the first turn.
   */
  tools?: (cwd: string, ops: ToolOperations | undefined) => AnyAgentTool[] | Promise<AnyAgentTool[]>;
  /** The operations the default built-in tools use; its `homeDir()` is what approvals expand `~` with. */
  toolOperations?: ToolOperations;
  /**
   * Chooses each thread's operations at load (sandboxed or local). Defaults to the local
   * backend with credential hygiene, or `toolOperations` when given.
   */
  toolBackend?: ToolBackendFactory;
  /** The environment tool processes start from (without credentials); this process's by default. */
  toolEnv?: Record<string, string | undefined>;
  /** `--sandbox`: every thread's tools run in its own bubblewrap sandbox. */
  sandbox?: boolean;
  /** The server runs inside a process-wide sandbox (`knightcode --sandbox=process`). */
  processSandbox?: boolean;
  /** How a thread's sandbox starts its helper; a sandboxed thread without it fails closed. */
  sandboxHelper?: SandboxHelperCommand;
  /**
   * The home the tools expand `~` with (approvals judge `~/x` there). Also the default
   * tools' home when no `toolOperations` are given; set it when custom `tools` use
   * another home than the local backend's (`$HOME`).
   */
  homeDir?: string;
  systemPrompt?: (cwd: string) => Promise<string | undefined>;
  extensionHostFactory?: ExtensionHostFactory;
  compaction?: CompactionHooks;
  /** The MCP server processes of this manager's threads; stopped by `closeAll`. Default: a new hub over `env`. */
  mcpHub?: McpHub;
  /** Per-thread tool sources after the built-in MCP one (each thread's tools are refreshed before every model request). */
  toolSources?: ThreadToolSourceFactory[];
}
