/**
 * The production `TurnEnvironment` of a manager: the stream function, keys, tools and
 * the home they expand `~` with, the system prompt, compaction, and input expansion
 * (prompt templates, `skill:<name>`) from config's resource discovery.
 */
import { type AnyAgentTool, createBuiltinTools, type ToolOperations } from "@knightcode/agent";
import { createLocalOperations } from "@knightcode/agent/operations";
import type { Model, StreamFunction } from "@knightcode/ai";
import { discoverCommands, runtimeCommandSources } from "../commands/commands.ts";
import { expandInputText } from "../commands/prompt-expansion.ts";
import type { ThreadPort } from "../thread-port.ts";
import type { ModelSource } from "../threads/model-source.ts";
import { threadSystemPrompt } from "../threads/system-prompt.ts";
import type { CompactionHooks, TurnEnvironment } from "./environment.ts";
import type { TurnDiffs } from "./turn-diffs.ts";

/** The manager options a turn environment is built from. */
export interface EnvironmentOptions {
  tools?: (cwd: string, ops: ToolOperations | undefined) => AnyAgentTool[] | Promise<AnyAgentTool[]>;
  toolOperations?: ToolOperations;
  homeDir?: string;
  systemPrompt?: (cwd: string) => Promise<string | undefined>;
}

/** What the environment takes from its manager. */
export interface EnvironmentHost {
  agentDir: string;
  models: ModelSource;
  /** The model stream turns use: the manager's, which its compaction also summarizes with. */
  streamFn: StreamFunction;
  /** The manager's compaction hooks (built with the manager: usage reports and tree navigation need them). */
  compaction: CompactionHooks;
  now(): number;
  settled(thread: ThreadPort): void;
  diffs?: TurnDiffs;
}

/**
 * The home the tools expand `~` with: an explicit `homeDir`, else the tool operations'
 * (given, or the local backend's, which the default tools and the app server's use).
 */
export function toolsHomeDir(options: EnvironmentOptions): string {
  return options.homeDir ?? (options.toolOperations ?? createLocalOperations()).homeDir();
}

/** Builds the environment every turn of a manager runs in. */
export function createTurnEnvironment(options: EnvironmentOptions, host: EnvironmentHost): TurnEnvironment {
  return {
    streamFn: host.streamFn,
    getApiKey: (model: Model) => host.models.getApiKey(model),
    // The thread's backend (see tool-backend.ts) already carries the explicit home.
    tools: options.tools ?? ((cwd, ops) => createBuiltinTools({ cwd, ...(ops ? { ops } : {}) })),
    homeDir: toolsHomeDir(options),
    systemPrompt: async (runtime, tools) =>
      options.systemPrompt
        ? options.systemPrompt(runtime.cwd)
        : threadSystemPrompt({
            agentDir: host.agentDir,
            cwd: runtime.cwd,
            projectDir: runtime.projectDir || runtime.cwd,
            trusted: runtime.trusted,
            tools,
            now: host.now(),
            // Context files and SYSTEM.md are read once per load, not on every turn.
            sources: runtime.promptSources.get({
              agentDir: host.agentDir,
              cwd: runtime.cwd,
              projectDir: runtime.projectDir || runtime.cwd,
              trusted: runtime.trusted,
            }),
          }),
    compaction: host.compaction,
    ...(host.diffs ? { diffs: host.diffs } : {}),
    settled: (runtime) => host.settled(runtime),
    expandInput: (runtime, text) =>
      expandInputText(
        text,
        async () => ({
          ...(await discoverCommands(runtimeCommandSources(host.agentDir, runtime))),
          mcpPrompts: (await runtime.mcp?.servers.promptCommands()) ?? [],
        }),
        (message) => runtime.warn({ source: "settings", message }),
      ),
  };
}
