/**
 * Legacy settings keys, rewritten to their canonical names. Every migration moves a
 * value only when the canonical key is absent and always removes the legacy key, so
 * a file that went through a write no longer carries the alias that could bring a
 * deleted canonical key back.
 */
import { isPlainObject } from "./dotted-key.ts";

/** One legacy-key rewrite: mutates the settings and says whether it changed them. */
interface Migration {
  legacy: string;
  canonical: string;
  apply(settings: Record<string, unknown>): boolean;
}

const MIGRATIONS: readonly Migration[] = [
  {
    legacy: "queueMode",
    canonical: "steeringMode",
    apply(settings) {
      if (!Object.hasOwn(settings, "queueMode")) return false;
      if (!Object.hasOwn(settings, "steeringMode")) settings.steeringMode = settings.queueMode;
      delete settings.queueMode;
      return true;
    },
  },
  {
    legacy: "retry.maxDelayMs",
    canonical: "retry.provider.maxRetryDelayMs",
    apply(settings) {
      const retry = settings.retry;
      if (!isPlainObject(retry) || !Object.hasOwn(retry, "maxDelayMs")) return false;
      const provider = isPlainObject(retry.provider) ? retry.provider : undefined;
      if (provider === undefined || !Object.hasOwn(provider, "maxRetryDelayMs")) {
        retry.provider = { ...(provider ?? {}), maxRetryDelayMs: retry.maxDelayMs };
      }
      delete retry.maxDelayMs;
      return true;
    },
  },
  {
    legacy: "compaction.modelOverrides",
    canonical: "compaction.models",
    apply(settings) {
      const compaction = settings.compaction;
      if (!isPlainObject(compaction) || !Object.hasOwn(compaction, "modelOverrides")) return false;
      if (!Object.hasOwn(compaction, "models")) compaction.models = compaction.modelOverrides;
      delete compaction.modelOverrides;
      return true;
    },
  },
  {
    legacy: "skills.customDirectories",
    canonical: "skills",
    apply(settings) {
      // The old object form `{enableSkillCommands, customDirectories}` became a path array.
      const skills = settings.skills;
      if (!isPlainObject(skills)) return false;
      if (skills.enableSkillCommands !== undefined && !Object.hasOwn(settings, "enableSkillCommands")) {
        settings.enableSkillCommands = skills.enableSkillCommands;
      }
      const dirs = skills.customDirectories;
      if (Array.isArray(dirs) && dirs.length > 0) settings.skills = dirs;
      else delete settings.skills;
      return true;
    },
  },
];

/** The legacy keys this version migrates, with their canonical replacements. */
export const LEGACY_KEYS: ReadonlyArray<{ legacy: string; canonical: string }> = MIGRATIONS.map(
  ({ legacy, canonical }) => ({ legacy, canonical }),
);

/** Rewrites legacy keys in place; returns true when anything changed. */
export function migrateSettings(settings: Record<string, unknown>): boolean {
  let changed = false;
  for (const migration of MIGRATIONS) {
    if (migration.apply(settings)) changed = true;
  }
  return changed;
}
