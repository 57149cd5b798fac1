/**
 * Extension hook points around compaction and tree navigation. The thread runtime
 * adapts its extension runner to this interface; the default does nothing.
 */
import type { Usage } from "@knightcode/ai";
import type { CompactionEntry, SessionEntry } from "@knightcode/session-store";
import type { CompactionPreparation } from "./prepare.ts";

/** What `session_before_tree` sees. */
export interface BranchSummaryPreparation {
  targetId: string;
  oldLeafId: string | null;
  commonAncestorId: string | null;
  entriesToSummarize: SessionEntry[];
  userWantsSummary: boolean;
  customInstructions: string | undefined;
}

/** Why a compaction runs: `/compact`, the threshold check, or overflow/length recovery. */
export type CompactionReason = "manual" | "threshold" | "overflow";

/** Seen by `session_before_compact`. */
export interface SessionBeforeCompactEvent {
  preparation: CompactionPreparation;
  /** The whole current branch, root first. */
  branchEntries: readonly SessionEntry[];
  customInstructions: string | undefined;
  reason: CompactionReason;
  /** Whether a successful compaction is followed by a retry of the failed attempt. */
  willRetry: boolean;
  signal: AbortSignal;
}

/** A summary an extension supplies instead of the default one. */
export interface ExtensionCompaction {
  summary: string;
  /** Defaults to the preparation's boundary. */
  firstKeptEntryId?: string;
  details?: unknown;
  usage?: Usage;
}

/** What `session_before_compact` may answer: nothing, a cancellation, or its own summary. */
export type SessionBeforeCompactResult = undefined | { cancel: true } | { compaction: ExtensionCompaction };

/** Seen by `session_compact` after the entry is appended. */
export interface SessionCompactEvent {
  compactionEntry: CompactionEntry;
  fromExtension: boolean;
  reason: CompactionReason;
  willRetry: boolean;
}

/** Seen by `session_compact_failed`. */
export interface SessionCompactFailedEvent {
  reason: CompactionReason;
  /** Present for failures that are not aborts or cancellations. */
  errorMessage?: string;
  aborted: boolean;
  willRetry: boolean;
  fromExtension: boolean;
}

/** Seen by `session_before_tree`, before branch navigation. */
export interface SessionBeforeTreeEvent {
  preparation: BranchSummaryPreparation;
  signal: AbortSignal;
}

/** What `session_before_tree` may answer: nothing, a cancellation of the navigation, or its own summary. */
export type SessionBeforeTreeResult =
  | undefined
  | { cancel: true }
  | { summary: { summary: string; details?: unknown; usage?: Usage } };

/** The four hook points; every member is optional. */
export interface CompactionHooks {
  session_before_compact?(
    event: SessionBeforeCompactEvent,
  ): SessionBeforeCompactResult | Promise<SessionBeforeCompactResult>;
  session_compact?(event: SessionCompactEvent): void | Promise<void>;
  session_compact_failed?(event: SessionCompactFailedEvent): void | Promise<void>;
  session_before_tree?(
    event: SessionBeforeTreeEvent,
  ): SessionBeforeTreeResult | Promise<SessionBeforeTreeResult>;
}

/** Hooks that observe nothing and change nothing. */
export const noopCompactionHooks: CompactionHooks = Object.freeze({});
