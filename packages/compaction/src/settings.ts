/**
 * Resolved compaction settings and the trigger threshold. Resolution (global/project
 * merge and per-model overrides) belongs to the config package; this package takes the
 * result as captured when an operation starts.
 */

/** The three compaction settings, already resolved for the model in use. */
export interface CompactionSettings {
  enabled: boolean;
  /** Room left for the model's response; compaction triggers inside it. */
  reserveTokens: number;
  /** Roughly how many recent tokens stay verbatim after a compaction. */
  keepRecentTokens: number;
}

/** The defaults the spec names. */
export const DEFAULT_COMPACTION_SETTINGS: Readonly<CompactionSettings> = Object.freeze({
  enabled: true,
  reserveTokens: 16384,
  keepRecentTokens: 20000,
});

/** True when the context has crossed `contextWindow - reserveTokens` and compaction is enabled. */
export function shouldCompact(
  contextTokens: number,
  contextWindow: number,
  settings: CompactionSettings,
): boolean {
  if (!settings.enabled) return false;
  return contextTokens > contextWindow - settings.reserveTokens;
}
