/**
 * Where a compaction cuts: walk the projection from the newest entry, accumulating
 * estimated tokens until `keepRecentTokens` is reached, and keep from the nearest valid
 * cut point. All indices are positions on the branch path.
 */
import type { AgentMessage } from "@knightcode/session-store";
import { indexOnPath, type PathView } from "./projection.ts";
import { estimateMessageTokens } from "./tokens.ts";

/** The chosen cut. */
export interface CutPoint {
  /** Index of the first entry kept verbatim; equal to the range end when nothing is kept. */
  firstKeptIndex: number;
  /** Index of the message starting the user-message span the cut splits, or -1. */
  turnStartIndex: number;
  /** True when the cut lands inside a user-message span, after its start. */
  isSplitTurn: boolean;
  /** True when the cut moved past the last visible entry into an omitted-attempt suffix. */
  advancedIntoSuffix: boolean;
}

/** Tool results must stay with the call that produced them, so they never start the kept part. */
function isValidCutMessage(message: AgentMessage | undefined): boolean {
  return message !== undefined && message.role !== "toolResult";
}

/** User-role context (typed input, bash runs, custom messages, summaries) starts a user-message span. */
function startsSpan(message: AgentMessage | undefined): boolean {
  return message !== undefined && message.role !== "assistant" && message.role !== "toolResult";
}

/** Index of the span start at or before `index`, not before `start`, or -1. */
export function findSpanStart(view: PathView, index: number, start: number): number {
  for (let i = index; i >= start; i--) {
    if (startsSpan(view.messages[i])) return i;
  }
  return -1;
}

/** Start of the trailing run of context-invisible entries in [start, end); `end` when there is none. */
export function invisibleSuffixStart(view: PathView, start: number, end: number): number {
  let s = end;
  while (s > start && view.messages[s - 1] === undefined && view.entries[s - 1]?.type !== "compaction") s--;
  return s;
}

/**
 * Whether the kept boundary may move to `suffixStart`: the suffix must hold an omitted
 * assistant attempt, and no edit inside it may replace an entry before it (the attempt
 * answered the pre-edit input, so that input must stay as the model saw it).
 */
export function canAdvanceIntoSuffix(view: PathView, suffixStart: number, end: number): boolean {
  if (suffixStart >= end) return false;
  let hasOmittedAttempt = false;
  for (let i = suffixStart; i < end; i++) {
    const entry = view.entries[i];
    if (entry === undefined) continue;
    if (entry.type === "message" && entry.message.role === "assistant" && view.omitted.has(entry.id)) {
      hasOmittedAttempt = true;
    } else if (entry.type === "context_edit") {
      for (const replacement of entry.replace ?? []) {
        if (indexOnPath(view, replacement.entryId, suffixStart) >= 0) return false;
      }
    }
  }
  return hasOmittedAttempt;
}

/** First element of the sorted `points` that is >= `value`, or undefined. */
function firstAtOrAfter(points: readonly number[], value: number): number | undefined {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((points[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return points[lo];
}

/**
 * Finds the cut in [start, end) keeping about `keepRecentTokens` of recent context.
 * A budget of 0 or less keeps nothing.
 */
export function findCutPoint(view: PathView, start: number, end: number, keepRecentTokens: number): CutPoint {
  const none: CutPoint = {
    firstKeptIndex: start,
    turnStartIndex: -1,
    isSplitTurn: false,
    advancedIntoSuffix: false,
  };
  if (keepRecentTokens <= 0) return { ...none, firstKeptIndex: end };
  const cutPoints: number[] = [];
  for (let i = start; i < end; i++) if (isValidCutMessage(view.messages[i])) cutPoints.push(i);
  const first = cutPoints[0];
  if (first === undefined) return none;

  let cut = first;
  let crossing = -1;
  let accumulated = 0;
  for (let i = end - 1; i >= start; i--) {
    const message = view.messages[i];
    if (message === undefined) continue;
    accumulated += estimateMessageTokens(message);
    if (accumulated >= keepRecentTokens) {
      crossing = i;
      const after = firstAtOrAfter(cutPoints, i);
      // With only tool results after the crossing, keep their call too rather than everything.
      cut = after ?? cutPoints.filter((p) => p < i).at(-1) ?? first;
      break;
    }
  }

  // The newest input alone used up the budget (no valid cut point after the crossing):
  // after a recovery omission, summarize it and keep only the invisible suffix.
  if (crossing >= 0 && firstAtOrAfter(cutPoints, crossing + 1) === undefined) {
    const suffix = invisibleSuffixStart(view, start, end);
    if (canAdvanceIntoSuffix(view, suffix, end)) {
      return { firstKeptIndex: suffix, turnStartIndex: -1, isSplitTurn: false, advancedIntoSuffix: true };
    }
  }

  const messageCut = cut;
  // Settings changes and other metadata just before the cut belong with what follows.
  while (cut > start) {
    const previous = view.entries[cut - 1];
    if (previous === undefined || previous.type === "message" || previous.type === "compaction") break;
    if (view.messages[cut - 1] !== undefined) break;
    cut--;
  }
  const turnStartIndex = startsSpan(view.messages[messageCut]) ? -1 : findSpanStart(view, messageCut, start);
  return {
    firstKeptIndex: cut,
    turnStartIndex,
    isSplitTurn: turnStartIndex !== -1,
    advancedIntoSuffix: false,
  };
}
