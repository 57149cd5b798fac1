/**
 * Resolved compaction settings and the trigger threshold. Resolution (global/project
 * merge and per-model overrides) belongs to the config package; this package takes the
 * result as captured when an operation starts.
 */

import type { CompactionSettings } from "@knightcode/config";

// One definition of the settings and their spec defaults: the config package's.
export { type CompactionSettings, DEFAULT_COMPACTION_SETTINGS } from "@knightcode/config";

/** True when the context has crossed `contextWindow - reserveTokens` and compaction is enabled. */
export function shouldCompact(
  contextTokens: number,
  contextWindow: number,
  settings: CompactionSettings,
): boolean {
  if (!settings.enabled) return false;
  return contextTokens > contextWindow - settings.reserveTokens;
}
