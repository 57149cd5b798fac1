/**
 * Branch summarization for tree navigation: what was learned on the branch being left
 * is summarized and placed at the navigation point as a `branch_summary` entry.
 */
import type { Usage } from "@knightcode/ai";
import type { AgentMessage, SessionEntry } from "@knightcode/session-store";
import {
  addFileOpsFromDetails,
  addFileOpsFromMessage,
  computeFileLists,
  createFileOps,
  type FileListDetails,
  type FileOperations,
  formatFileLists,
} from "./file-ops.ts";
import type { BranchSummaryPreparation, CompactionHooks, SessionBeforeTreeResult } from "./hooks.ts";

export type { BranchSummaryPreparation };

import { compactionSummaryMessage, projectPath } from "./projection.ts";
import { BRANCH_SUMMARY_PREAMBLE, BRANCH_SUMMARY_PROMPT } from "./prompts.ts";
import { serializeConversation } from "./serialize.ts";
import { requestSummary, SummarizationError, type SummaryModel } from "./summarize.ts";
import { estimateMessageTokens } from "./tokens.ts";

/** Output budget of a branch summary request. */
export const BRANCH_SUMMARY_MAX_TOKENS = 2048;

/** Looks an entry up by ID in the session tree. */
export type EntryLookup = (id: string) => SessionEntry | undefined;

/** The path from the root to `leafId`, root first. */
export function pathTo(getEntry: EntryLookup, leafId: string | null): SessionEntry[] {
  const path: SessionEntry[] = [];
  const seen = new Set<string>();
  let current = leafId;
  while (current !== null && !seen.has(current)) {
    seen.add(current);
    const entry = getEntry(current);
    if (!entry) break;
    path.push(entry);
    current = entry.parentId;
  }
  return path.reverse();
}

/** The branch being left: entries after the common ancestor, oldest first. */
export interface BranchEntries {
  /** Entries from just after the common ancestor to the old leaf. */
  entries: SessionEntry[];
  /** Deepest entry on both the old and the target path, or null when they share none. */
  commonAncestorId: string | null;
  /** The whole old path, root first (context edits anywhere on it apply). */
  oldPath: SessionEntry[];
}

/** Collects the entries between the old leaf and its common ancestor with the target. */
export function collectEntriesForBranchSummary(
  getEntry: EntryLookup,
  oldLeafId: string | null,
  targetId: string,
): BranchEntries {
  if (oldLeafId === null) return { entries: [], commonAncestorId: null, oldPath: [] };
  const oldPath = pathTo(getEntry, oldLeafId);
  const onOldPath = new Set(oldPath.map((entry) => entry.id));
  const targetPath = pathTo(getEntry, targetId);
  let commonAncestorId: string | null = null;
  for (let i = targetPath.length - 1; i >= 0; i--) {
    const id = (targetPath[i] as SessionEntry).id;
    if (onOldPath.has(id)) {
      commonAncestorId = id;
      break;
    }
  }
  const from =
    commonAncestorId === null ? 0 : oldPath.findIndex((entry) => entry.id === commonAncestorId) + 1;
  return { entries: oldPath.slice(from), commonAncestorId, oldPath };
}

/** Messages chosen for a branch summary. */
export interface PreparedBranch {
  /** Chronological messages that fit the budget (the newest are kept). */
  messages: AgentMessage[];
  fileOps: FileOperations;
  totalTokens: number;
}

/**
 * Chooses what to summarize, newest first, until `tokenBudget` (0 = unlimited). Tool
 * results are left out: the call that produced them says what was done. File lists are
 * carried from every default branch summary among the entries, even ones over budget.
 */
export function prepareBranchEntries(branch: BranchEntries, tokenBudget = 0): PreparedBranch {
  const view = projectPath(branch.oldPath.length > 0 ? branch.oldPath : branch.entries);
  const offset = view.entries.length - branch.entries.length;
  const fileOps = createFileOps();
  for (const entry of branch.entries) {
    if (entry.type === "branch_summary" && entry.fromHook !== true)
      addFileOpsFromDetails(entry.details, fileOps);
  }
  const messages: AgentMessage[] = [];
  let totalTokens = 0;
  for (let i = view.entries.length - 1; i >= offset; i--) {
    const entry = view.entries[i] as SessionEntry;
    let message = view.messages[i];
    if (entry.type === "compaction" && !view.omitted.has(entry.id)) message = compactionSummaryMessage(entry);
    if (message === undefined || message.role === "toolResult") continue;
    addFileOpsFromMessage(message, fileOps);
    const tokens = estimateMessageTokens(message);
    if (tokenBudget > 0 && totalTokens + tokens > tokenBudget) {
      // Earlier summaries condense much; squeeze one in if there is clear room left.
      const isSummary = message.role === "compactionSummary" || message.role === "branchSummary";
      if (isSummary && totalTokens < tokenBudget * 0.9) {
        messages.unshift(message);
        totalTokens += tokens;
      }
      break;
    }
    messages.unshift(message);
    totalTokens += tokens;
  }
  return { messages, fileOps, totalTokens };
}

/** A generated branch summary. */
export interface BranchSummaryResult {
  summary: string;
  details: FileListDetails;
  usage: Usage | undefined;
}

/** Summarizes a prepared branch; throws `SummarizationError` on failure. */
export async function generateBranchSummary(
  prepared: PreparedBranch,
  target: SummaryModel,
  options: { customInstructions?: string; signal?: AbortSignal } = {},
): Promise<BranchSummaryResult> {
  const details = computeFileLists(prepared.fileOps);
  if (prepared.messages.length === 0) {
    return { summary: `No content to summarize.${formatFileLists(details)}`, details, usage: undefined };
  }
  let instructions = BRANCH_SUMMARY_PROMPT;
  if (options.customInstructions) instructions += `\n\nAdditional focus: ${options.customInstructions}`;
  const prompt = `<conversation>\n${serializeConversation(prepared.messages)}\n</conversation>\n\n${instructions}`;
  const result = await requestSummary(prompt, BRANCH_SUMMARY_MAX_TOKENS, target, options.signal);
  return {
    summary: BRANCH_SUMMARY_PREAMBLE + result.text + formatFileLists(details),
    details,
    usage: result.usage,
  };
}

/** A branch summary entry before the store assigns ID, parent and time. */
export interface BranchSummaryDraft {
  summary: string;
  fromId: string;
  details?: unknown;
  fromHook?: boolean;
  usage?: Usage;
}

/** Inputs of one tree navigation. */
export interface SummarizeBranchOptions {
  getEntry: EntryLookup;
  oldLeafId: string | null;
  targetId: string;
  /** Whether the user asked for a summary of the branch being left. */
  summarize: boolean;
  customInstructions?: string;
  /**
   * What writes the default summary. Absent (a thread without a model): the hook still
   * runs and its summary is used; a summary the user asked for and no hook gave fails.
   */
  summarizer?: SummaryModel;
  /** Reserved context for prompt and answer; the rest of the window is the input budget. */
  reserveTokens: number;
  hooks?: CompactionHooks;
  signal?: AbortSignal;
}

/** Why a summary the user asked for could not be written on a thread without a model. */
export const NO_SUMMARY_MODEL_MESSAGE = "No model is selected to write the summary";

/** How a navigation's summary step ended. */
export type SummarizeBranchOutcome =
  | { status: "summarized"; draft: BranchSummaryDraft; fromExtension: boolean }
  | { status: "skipped" }
  | { status: "cancelled" }
  | { status: "failed"; errorMessage: string; aborted: boolean };

/**
 * Decides the branch summary for a navigation: runs `session_before_tree`, then the
 * default summarizer when asked. The caller appends `draft` at the navigation point.
 */
export async function summarizeBranch(options: SummarizeBranchOptions): Promise<SummarizeBranchOutcome> {
  const signal = options.signal ?? new AbortController().signal;
  const branch = collectEntriesForBranchSummary(options.getEntry, options.oldLeafId, options.targetId);
  const preparation: BranchSummaryPreparation = {
    targetId: options.targetId,
    oldLeafId: options.oldLeafId,
    commonAncestorId: branch.commonAncestorId,
    entriesToSummarize: branch.entries,
    userWantsSummary: options.summarize,
    customInstructions: options.customInstructions,
  };
  let decision: SessionBeforeTreeResult;
  try {
    decision = await options.hooks?.session_before_tree?.({ preparation, signal });
  } catch (error) {
    return { status: "failed", errorMessage: `session_before_tree failed: ${String(error)}`, aborted: false };
  }
  if (decision && "cancel" in decision) return { status: "cancelled" };
  const fromId = options.oldLeafId;
  if (fromId === null || branch.entries.length === 0) return { status: "skipped" };
  if (decision && "summary" in decision) {
    const draft: BranchSummaryDraft = { summary: decision.summary.summary, fromId, fromHook: true };
    if (decision.summary.details !== undefined) draft.details = decision.summary.details;
    if (decision.summary.usage) draft.usage = decision.summary.usage;
    return { status: "summarized", draft, fromExtension: true };
  }
  if (!options.summarize) return { status: "skipped" };
  if (options.summarizer === undefined) {
    return { status: "failed", errorMessage: NO_SUMMARY_MODEL_MESSAGE, aborted: false };
  }
  const budget = Math.max(0, options.summarizer.model.contextWindow - options.reserveTokens);
  try {
    const generateOptions: { customInstructions?: string; signal?: AbortSignal } = { signal };
    if (options.customInstructions) generateOptions.customInstructions = options.customInstructions;
    const result = await generateBranchSummary(
      prepareBranchEntries(branch, budget),
      options.summarizer,
      generateOptions,
    );
    const draft: BranchSummaryDraft = { summary: result.summary, fromId, details: result.details };
    if (result.usage) draft.usage = result.usage;
    return { status: "summarized", draft, fromExtension: false };
  } catch (error) {
    const aborted = (error instanceof SummarizationError && error.aborted) || signal.aborted;
    return {
      status: "failed",
      errorMessage: error instanceof Error ? error.message : String(error),
      aborted,
    };
  }
}
