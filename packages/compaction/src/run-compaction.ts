/**
 * One compaction from start to finish: plan, let `session_before_compact` cancel or
 * supply the summary, summarize, recompute `tokensBefore` from the branch as it is now,
 * append the entry, and report success or failure to the hooks.
 */
import type { Usage } from "@knightcode/ai";
import type { CompactionEntry, SessionEntry } from "@knightcode/session-store";
import type { CompactionHooks, CompactionReason, SessionBeforeCompactResult } from "./hooks.ts";
import { type CompactionPreparation, prepareCompaction } from "./prepare.ts";
import { projectedContextTokens, projectPath } from "./projection.ts";
import type { CompactionSettings } from "./settings.ts";
import { compact, SummarizationError, type SummaryModel } from "./summarize.ts";

/** A compaction entry before the store assigns ID, parent and time. */
export interface CompactionDraft {
  summary: string;
  /** `null` asks the store to record the new entry's own ID (retain-none). */
  firstKeptEntryId: string | null;
  tokensBefore: number;
  details?: unknown;
  fromHook?: boolean;
  usage?: Usage;
}

/** The session operations a compaction needs; the thread runtime adapts its session file. */
export interface CompactionSessionPort {
  /** The current branch, root first. */
  branch(): readonly SessionEntry[];
  /** Appends a compaction entry at the leaf and returns it as stored. */
  appendCompaction(draft: CompactionDraft): CompactionEntry | Promise<CompactionEntry>;
}

/** Everything one compaction run captures up front (model and settings do not change under it). */
export interface RunCompactionOptions {
  session: CompactionSessionPort;
  settings: CompactionSettings;
  summarizer: SummaryModel;
  reason: CompactionReason;
  willRetry: boolean;
  customInstructions?: string;
  hooks?: CompactionHooks;
  signal?: AbortSignal;
}

/** How a compaction run ended. */
export type CompactionOutcome =
  | { status: "compacted"; entry: CompactionEntry; fromExtension: boolean }
  | { status: "cancelled" }
  | { status: "failed"; errorMessage: string; aborted: boolean; fromExtension: boolean };

/** Context tokens of the branch's rebuilt, context-edited projection. */
export function branchContextTokens(branch: readonly SessionEntry[]): number {
  return projectedContextTokens(projectPath(branch));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs one compaction. Never throws: failures come back as an outcome after `session_compact_failed`. */
export async function runCompaction(options: RunCompactionOptions): Promise<CompactionOutcome> {
  const { session, reason, willRetry, hooks = {} } = options;
  // Captured now: a settings change or model switch during the run affects later runs only.
  const settings = { ...options.settings };
  const summarizer = { ...options.summarizer, model: { ...options.summarizer.model } };
  const signal = options.signal ?? new AbortController().signal;
  let fromExtension = false;

  const fail = async (errorMessage: string | undefined, aborted: boolean): Promise<CompactionOutcome> => {
    const event = { reason, aborted, willRetry, fromExtension, ...(errorMessage ? { errorMessage } : {}) };
    try {
      await hooks.session_compact_failed?.(event);
    } catch {
      // A failing observer must not turn a reported failure into a crash.
    }
    if (aborted && !errorMessage) return { status: "cancelled" };
    return { status: "failed", errorMessage: errorMessage ?? "Compaction aborted", aborted, fromExtension };
  };

  const branchEntries = session.branch();
  let preparation: CompactionPreparation | undefined;
  try {
    preparation = prepareCompaction(branchEntries, settings);
  } catch (error) {
    return fail(errorText(error), false);
  }
  if (!preparation) return fail("Nothing to compact", false);

  let decision: SessionBeforeCompactResult;
  try {
    decision = await hooks.session_before_compact?.({
      preparation,
      branchEntries,
      customInstructions: options.customInstructions,
      reason,
      willRetry,
      signal,
    });
  } catch (error) {
    return fail(`session_before_compact failed: ${errorText(error)}`, false);
  }
  if (decision && "cancel" in decision) return fail(undefined, true);
  if (signal.aborted) return fail(undefined, true);

  let draft: CompactionDraft;
  try {
    if (decision && "compaction" in decision) {
      fromExtension = true;
      const supplied = decision.compaction;
      draft = {
        summary: supplied.summary,
        firstKeptEntryId: supplied.firstKeptEntryId ?? preparation.firstKeptEntryId ?? null,
        tokensBefore: 0,
        fromHook: true,
      };
      if (supplied.details !== undefined) draft.details = supplied.details;
      if (supplied.usage) draft.usage = supplied.usage;
    } else {
      const summaryOptions: { customInstructions?: string; signal?: AbortSignal } = { signal };
      if (options.customInstructions) summaryOptions.customInstructions = options.customInstructions;
      const result = await compact(preparation, summarizer, summaryOptions);
      draft = {
        summary: result.summary,
        firstKeptEntryId: result.firstKeptEntryId ?? null,
        tokensBefore: 0,
        details: result.details,
      };
      if (result.usage) draft.usage = result.usage;
    }
  } catch (error) {
    const aborted = (error instanceof SummarizationError && error.aborted) || signal.aborted;
    return fail(aborted ? undefined : errorText(error), aborted);
  }
  if (signal.aborted) return fail(undefined, true);

  // The branch may have gained entries (context edits, custom messages) while the model
  // was summarizing; the count must describe the context actually being replaced.
  draft.tokensBefore = branchContextTokens(session.branch());
  let entry: CompactionEntry;
  try {
    entry = await session.appendCompaction(draft);
  } catch (error) {
    return fail(`Could not save the compaction: ${errorText(error)}`, false);
  }
  try {
    await hooks.session_compact?.({ compactionEntry: entry, fromExtension, reason, willRetry });
  } catch {
    // The compaction is durable; an observer's error does not undo it.
  }
  return { status: "compacted", entry, fromExtension };
}
