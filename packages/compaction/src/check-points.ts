/**
 * When the threshold is checked: after a tool batch before the next response (unless the
 * batch ends the run and nothing queued needs a response) and before a new user prompt.
 * Final-attempt recovery after a run is `selectRecovery`'s job.
 */
import type { SessionEntry } from "@knightcode/session-store";
import { branchContextTokens } from "./run-compaction.ts";
import { type CompactionSettings, shouldCompact } from "./settings.ts";

/** A point in the run where the threshold may be checked. */
export type CompactionCheckPoint =
  | { kind: "afterToolBatch"; batchEndsRun: boolean; queuedNeedsResponse: boolean }
  | { kind: "beforePrompt" };

/** Whether this point checks the threshold at all. */
export function checksThresholdAt(point: CompactionCheckPoint): boolean {
  // A batch that ends the run with nothing queued is followed by no request to protect.
  if (point.kind === "afterToolBatch") return !point.batchEndsRun || point.queuedNeedsResponse;
  return true;
}

/** The verdict of one check. */
export interface ThresholdCheck {
  compact: boolean;
  /** Context tokens of the projected branch; undefined when the point does not check. */
  contextTokens: number | undefined;
}

/** Checks the canonical projected context of `branch` at `point`. */
export function checkThreshold(
  point: CompactionCheckPoint,
  branch: readonly SessionEntry[],
  contextWindow: number,
  settings: CompactionSettings,
): ThresholdCheck {
  if (!checksThresholdAt(point) || !settings.enabled) return { compact: false, contextTokens: undefined };
  const contextTokens = branchContextTokens(branch);
  return { compact: shouldCompact(contextTokens, contextWindow, settings), contextTokens };
}
