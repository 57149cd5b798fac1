/**
 * Pure compaction planning: from a branch and resolved settings, decide what is
 * summarized, what is kept, and the context size being replaced. No I/O, no model.
 */
import type { AgentMessage, CompactionEntry, SessionEntry } from "@knightcode/session-store";
import { findCutPoint } from "./cut-point.ts";
import {
  addFileOpsFromDetails,
  addFileOpsFromMessage,
  createFileOps,
  type FileOperations,
} from "./file-ops.ts";
import { keptStartIndex, type PathView, projectedContextTokens, projectPath } from "./projection.ts";
import type { CompactionSettings } from "./settings.ts";

/** Everything a compaction needs, and what `session_before_compact` hooks see. */
export interface CompactionPreparation {
  /** ID of the first kept entry; undefined for a retain-none compaction, which records its own ID. */
  firstKeptEntryId: string | undefined;
  /** Path index of the first kept entry (the path length when nothing is kept). */
  firstKeptIndex: number;
  /** Path index where the summarized range starts (the previous kept boundary, or 0). */
  summarizeFromIndex: number;
  /** Projected messages summarized into the history summary. */
  messagesToSummarize: AgentMessage[];
  /** Projected messages of a split span's prefix, summarized separately. */
  turnPrefixMessages: AgentMessage[];
  /** True when the cut lands inside a user-message span. */
  isSplitTurn: boolean;
  /** Path index of the split span's first message, or -1. */
  turnStartIndex: number;
  /** Context tokens of the rebuilt, context-edited projection before this compaction. */
  tokensBefore: number;
  /** Summary of the previous compaction on the path, for an iterative update. */
  previousSummary: string | undefined;
  /** File operations carried over and extracted from the summarized messages. */
  fileOps: FileOperations;
  /** The settings captured for this operation. */
  settings: CompactionSettings;
}

/** Where the summarized range of a repeated compaction starts. */
export function summarizeStartIndex(view: PathView): number {
  const previous = view.latestCompactionIndex;
  if (previous < 0) return 0;
  // Entries the previous compaction kept are summarized again; a retain-none one kept nothing.
  return keptStartIndex(view, previous) ?? previous + 1;
}

function collect(view: PathView, from: number, to: number): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let i = from; i < to; i++) {
    const message = view.messages[i];
    if (message !== undefined) out.push(message);
  }
  return out;
}

/**
 * Plans a compaction of the branch `path` (root first). Returns undefined when there is
 * nothing to summarize, including right after a compaction.
 */
export function prepareCompaction(
  path: readonly SessionEntry[],
  settings: CompactionSettings,
): CompactionPreparation | undefined {
  if (path.length === 0 || path[path.length - 1]?.type === "compaction") return undefined;
  const view = projectPath(path);
  const start = summarizeStartIndex(view);
  const end = path.length;
  const tokensBefore = projectedContextTokens(view);
  const cut = findCutPoint(view, start, end, settings.keepRecentTokens);

  const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptIndex;
  const messagesToSummarize = collect(view, start, historyEnd);
  const turnPrefixMessages = cut.isSplitTurn ? collect(view, cut.turnStartIndex, cut.firstKeptIndex) : [];
  if (messagesToSummarize.length === 0 && turnPrefixMessages.length === 0) return undefined;

  const previous =
    view.latestCompactionIndex >= 0 ? (path[view.latestCompactionIndex] as CompactionEntry) : undefined;
  const fileOps = createFileOps();
  // Extension summaries keep their own details format, so only default ones carry file lists.
  if (previous && previous.fromHook !== true) addFileOpsFromDetails(previous.details, fileOps);
  for (const message of messagesToSummarize) addFileOpsFromMessage(message, fileOps);
  for (const message of turnPrefixMessages) addFileOpsFromMessage(message, fileOps);

  return {
    firstKeptEntryId: cut.firstKeptIndex < end ? path[cut.firstKeptIndex]?.id : undefined,
    firstKeptIndex: cut.firstKeptIndex,
    summarizeFromIndex: start,
    messagesToSummarize,
    turnPrefixMessages,
    isSplitTurn: cut.isSplitTurn,
    turnStartIndex: cut.turnStartIndex,
    tokensBefore,
    previousSummary: previous?.summary,
    fileOps,
    settings,
  };
}
