/**
 * Effective compaction settings for one model. Runs on the merged settings, so a
 * global `compaction.models["p/m"]` entry beats a project's plain `compaction.*`.
 */
import { formatDottedKey, isPlainObject } from "./dotted-key.ts";
import type { ConfigWarning } from "./warning.ts";

/** Compaction settings with every default applied. */
export interface CompactionSettings {
  enabled: boolean;
  reserveTokens: number;
  keepRecentTokens: number;
}

/** Built-in compaction defaults. */
export const DEFAULT_COMPACTION_SETTINGS: Readonly<CompactionSettings> = Object.freeze({
  enabled: true,
  reserveTokens: 16384,
  keepRecentTokens: 20000,
});

type Field = keyof CompactionSettings;

/**
 * Resolves each compaction key through the exact, case-sensitive model entry
 * (`compaction.models["provider/modelId"]`), then plain `compaction.*`, then the default.
 * Ill-typed values are skipped and reported in `warnings` when given.
 */
export function resolveCompactionSettings(
  settings: Record<string, unknown>,
  modelKey?: string,
  warnings?: ConfigWarning[],
): CompactionSettings {
  const compaction = isPlainObject(settings.compaction) ? settings.compaction : {};
  const models = isPlainObject(compaction.models) ? compaction.models : {};
  const entry = modelKey !== undefined && Object.hasOwn(models, modelKey) ? models[modelKey] : undefined;
  const modelEntry = isPlainObject(entry) ? entry : {};
  if (entry !== undefined && !isPlainObject(entry)) {
    warnings?.push({
      source: "settings",
      message: `Ignoring ${formatDottedKey(["compaction", "models", modelKey!])}: expected an object`,
    });
  }
  const pick = <F extends Field>(field: F): CompactionSettings[F] => {
    const candidates: Array<[unknown, string[]]> = [
      [modelEntry[field], ["compaction", "models", modelKey ?? "", field]],
      [compaction[field], ["compaction", field]],
    ];
    for (const [value, path] of candidates) {
      if (value === undefined) continue;
      if (isValid(field, value)) return value as CompactionSettings[F];
      warnings?.push({
        source: "settings",
        message: `Ignoring ${formatDottedKey(path)}: expected ${field === "enabled" ? "a boolean" : "a non-negative integer"}`,
      });
    }
    return DEFAULT_COMPACTION_SETTINGS[field];
  };
  return {
    enabled: pick("enabled"),
    reserveTokens: pick("reserveTokens"),
    keepRecentTokens: pick("keepRecentTokens"),
  };
}

function isValid(field: Field, value: unknown): boolean {
  if (field === "enabled") return typeof value === "boolean";
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
