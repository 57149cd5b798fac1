/**
 * What a turn needs besides its thread: the model stream and keys, the tools, the system
 * prompt, compaction at the spec's check points, input expansion, and the hook the
 * manager starts queued input from. `turn-environment.ts` builds the production one.
 */

import type { AnyAgentTool, ToolOperations } from "@knightcode/agent";
import type { AssistantMessage, Model, StreamFunction } from "@knightcode/ai";
import type { SummarizeBranchOutcome } from "@knightcode/compaction";
import type { ThreadPort } from "../thread-port.ts";
import type { TurnDiffs } from "./turn-diffs.ts";

/** Compaction at the spec's check points, from `@knightcode/compaction`. */
export interface CompactionHooks {
  /** Before a new user prompt and between tool batches: compact when over the threshold. */
  maybeCompact(thread: ThreadPort, reason: "threshold", signal: AbortSignal): Promise<void>;
  /** After a tool batch, before the next response; true when it compacted (the context is rebuilt). */
  afterToolBatch(thread: ThreadPort, signal: AbortSignal): Promise<boolean>;
  /**
   * After a run that ended in overflow or an early `length` stop: run the attempt's
   * `agent_end` (via `agentEnd`), repair the context, and say whether to retry.
   */
  recover(
    thread: ThreadPort,
    lastAssistant: AssistantMessage,
    signal: AbortSignal,
    agentEnd: () => Promise<void>,
  ): Promise<boolean>;
  /** Context size estimate for usage reports. */
  contextTokens(thread: ThreadPort): number | undefined;
  /**
   * `thread/tree/navigate`: `session_before_tree`, then (when asked) a summary of the
   * branch being left. Absent: navigation never summarizes.
   */
  branchSummary?(
    thread: ThreadPort,
    request: { targetId: string; summarize: boolean; customInstructions?: string },
    signal: AbortSignal,
  ): Promise<SummarizeBranchOutcome>;
  /**
   * `/compact [instructions]`: one manual compaction (reason `manual`) with the user's
   * instructions passed through. Absent: manual compaction is unavailable.
   */
  manual?(
    thread: ThreadPort,
    customInstructions: string | undefined,
    signal: AbortSignal,
  ): Promise<ManualCompactionOutcome>;
}

/** How a manual compaction ended. */
export type ManualCompactionOutcome =
  | { status: "compacted" }
  | { status: "cancelled" }
  | { status: "failed"; errorMessage: string };

/** Everything a turn needs besides the thread. */
export interface TurnEnvironment {
  streamFn: StreamFunction;
  getApiKey(model: Model): Promise<string | undefined>;
  /** The tools of one turn, acting through the thread's operations (undefined: the factory's own). */
  tools(cwd: string, ops: ToolOperations | undefined): AnyAgentTool[] | Promise<AnyAgentTool[]>;
  systemPrompt(thread: ThreadPort, tools: readonly AnyAgentTool[]): Promise<string | undefined>;
  compaction: CompactionHooks;
  /** Called after every turn settles so the manager can start queued input. */
  settled(thread: ThreadPort): void;
  /** The home the tools expand `~` with; approvals judge `~/x` paths against it. */
  homeDir?: string;
  /** Turns accepted input text into the user message (prompt templates, `skill:<name>`). */
  expandInput?(thread: ThreadPort, text: string): Promise<string>;
  /** Turn diffs (`turn/diff/updated`): the start snapshot before any tool runs, the last diff before settling. */
  diffs?: TurnDiffs;
}
