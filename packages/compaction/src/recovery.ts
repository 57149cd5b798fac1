/**
 * Overflow and early-length recovery as an explicit, ordered plan. The thread runtime
 * executes the steps; the order is the spec's and is not the runtime's to change:
 * persist final response, turn_end, agent_end, context_edit omissions, compaction
 * (with session_before_compact), then a fresh retry only if the compaction succeeded.
 */
import type { AssistantMessage } from "@knightcode/ai";
import type { ContextEditEntry } from "@knightcode/session-store";
import type { CompactionOutcome } from "./run-compaction.ts";
import type { CompactionSettings } from "./settings.ts";
import { usageContextTokens } from "./tokens.ts";

/** What made the attempt fail. */
export type RecoveryKind = "overflow" | "length";

// Provider wordings for "the prompt does not fit", for providers that do not classify errors.
const OVERFLOW_PATTERNS: readonly RegExp[] = [
  /prompt is too long/i,
  /input is too long/i,
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /exceeds? (?:the )?(?:model'?s? )?context (?:window|length|limit)/i,
  /context window (?:is )?(?:exceeded|full)/i,
  /too many (?:input )?tokens/i,
  /reduce the length of the messages/i,
];

/** True when a final response is a context-overflow failure. */
export function isContextOverflow(message: AssistantMessage, contextWindow?: number): boolean {
  if (message.stopReason !== "error") return false;
  if (message.errorKind === "contextOverflow") return true;
  const text = message.errorMessage ?? "";
  if (OVERFLOW_PATTERNS.some((pattern) => pattern.test(text))) return true;
  // Some servers fail without saying why; an input beyond the window is reason enough.
  return contextWindow !== undefined && contextWindow > 0 && message.usage.input > contextWindow;
}

/**
 * True for a final `length` stop that ended early: no tool calls (those get synthetic
 * failed results and go on through the ordinary scheduler) and fewer output tokens than
 * the request allowed, so the context window, not the output limit, cut it short.
 */
export function isEarlyLengthStop(
  message: AssistantMessage,
  limits: { maxOutputTokens: number; contextWindow?: number },
): boolean {
  if (message.stopReason !== "length") return false;
  if (message.content.some((block) => block.type === "toolCall")) return false;
  if (message.usage.output < limits.maxOutputTokens) return true;
  const window = limits.contextWindow;
  return window !== undefined && window > 0 && usageContextTokens(message.usage) >= window;
}

/** One step of a recovery, in execution order. */
export type RecoveryStep =
  | { type: "persistFinalResponse" }
  | { type: "turnEnd" }
  | { type: "agentEnd" }
  | { type: "appendOmissions"; entryIds: readonly string[] }
  | { type: "compact"; reason: "overflow"; willRetry: true }
  | { type: "retry" };

/** The selected recovery and the steps to run, in order. */
export interface RecoveryPlan {
  kind: RecoveryKind;
  /** Entries of the failed attempt that the omission edit hides from the model. */
  attemptEntryIds: readonly string[];
  steps: readonly RecoveryStep[];
}

/** What the runtime knows when a low-level run ends. */
export interface RecoverySelectionInput {
  /** The run's final assistant response. */
  finalMessage: AssistantMessage;
  /** Entries of the attempt to omit (at least the final response's entry). */
  attemptEntryIds: readonly string[];
  settings: CompactionSettings;
  contextWindow: number;
  /** Output limit of the request that produced `finalMessage`. */
  maxOutputTokens: number;
  /** True when this run was already a recovery retry: one attempt per failure, never a loop. */
  isRecoveryRetry: boolean;
}

/** Chooses a compact-and-retry recovery for a finished run, or undefined when none applies. */
export function selectRecovery(input: RecoverySelectionInput): RecoveryPlan | undefined {
  if (!input.settings.enabled || input.isRecoveryRetry || input.attemptEntryIds.length === 0)
    return undefined;
  let kind: RecoveryKind | undefined;
  if (isContextOverflow(input.finalMessage, input.contextWindow)) kind = "overflow";
  else if (
    isEarlyLengthStop(input.finalMessage, {
      maxOutputTokens: input.maxOutputTokens,
      contextWindow: input.contextWindow,
    })
  ) {
    kind = "length";
  }
  if (!kind) return undefined;
  return {
    kind,
    attemptEntryIds: [...input.attemptEntryIds],
    steps: [
      { type: "persistFinalResponse" },
      { type: "turnEnd" },
      { type: "agentEnd" },
      { type: "appendOmissions", entryIds: [...input.attemptEntryIds] },
      { type: "compact", reason: "overflow", willRetry: true },
      { type: "retry" },
    ],
  };
}

/** The `context_edit` that hides a failed attempt (the caller's store assigns ID, parent and time). */
export function omissionEdit(
  entryIds: readonly string[],
  kind: RecoveryKind,
): Omit<ContextEditEntry, "id" | "parentId" | "timestamp"> {
  return { type: "context_edit", omit: [...entryIds], reason: `${kind}-recovery` };
}

/** The runtime's side of each step. */
export interface RecoveryExecutor {
  persistFinalResponse(): Promise<void> | void;
  turnEnd(): Promise<void> | void;
  agentEnd(): Promise<void> | void;
  appendOmissions(entryIds: readonly string[], kind: RecoveryKind): Promise<void> | void;
  /** Runs the compaction (hooks included), normally through `runCompaction`. */
  compact(reason: "overflow", willRetry: true): Promise<CompactionOutcome>;
  /** Starts the retry as a fresh run. */
  retry(): Promise<void> | void;
}

/** How a recovery ended. */
export interface RecoveryResult {
  /** Steps executed, in order. */
  executed: RecoveryStep["type"][];
  compaction: CompactionOutcome | undefined;
  retried: boolean;
}

/**
 * Executes a plan step by step. When the compaction fails or is cancelled the omission
 * edits stay, nothing is appended and no retry is scheduled.
 */
export async function executeRecoveryPlan(
  plan: RecoveryPlan,
  executor: RecoveryExecutor,
): Promise<RecoveryResult> {
  const executed: RecoveryStep["type"][] = [];
  let compaction: CompactionOutcome | undefined;
  for (const step of plan.steps) {
    switch (step.type) {
      case "persistFinalResponse":
        await executor.persistFinalResponse();
        break;
      case "turnEnd":
        await executor.turnEnd();
        break;
      case "agentEnd":
        await executor.agentEnd();
        break;
      case "appendOmissions":
        await executor.appendOmissions(step.entryIds, plan.kind);
        break;
      case "compact":
        compaction = await executor.compact(step.reason, step.willRetry);
        break;
      case "retry":
        if (compaction?.status !== "compacted") return { executed, compaction, retried: false };
        await executor.retry();
        break;
    }
    executed.push(step.type);
  }
  return { executed, compaction, retried: executed.includes("retry") };
}
