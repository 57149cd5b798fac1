/**
 * One read of one settings file: version, migrated settings and the parse warning all
 * come from the same bytes.
 */
import { parseFailureWarning, parseJsonObject, readRawFile } from "./json-file.ts";
import { scrubForbiddenKeys } from "./merge.ts";
import { migrateSettings } from "./migrations.ts";
import type { ConfigWarning } from "./warning.ts";

/** A settings file as read: `settings` is null when the file is absent or did not parse. */
export interface SettingsFileRead {
  path: string;
  version: string;
  settings: Record<string, unknown> | null;
  warnings: ConfigWarning[];
}

/** Reads, parses, scrubs and migrates one settings file; storage failures throw `internal`. */
export async function readSettingsFile(path: string): Promise<SettingsFileRead> {
  const file = await readRawFile(path);
  if (file.raw === null) return { path, version: file.version, settings: null, warnings: [] };
  return { path, version: file.version, ...interpretSettings(path, file.raw) };
}

/** Parses raw settings text into migrated settings plus warnings. */
export function interpretSettings(
  path: string,
  raw: string,
): { settings: Record<string, unknown> | null; warnings: ConfigWarning[] } {
  const parsed = parseJsonObject(raw);
  if (!parsed.ok) return { settings: null, warnings: [parseFailureWarning(path, parsed.failure)] };
  const settings = parsed.value;
  const warnings = scrubWithWarnings(path, settings);
  migrateSettings(settings);
  return { settings, warnings };
}

/**
 * Drops prototype-chain keys (`__proto__`, `constructor`, `prototype`) at any depth of a
 * parsed JSON object, with one warning per key dropped.
 */
export function scrubWithWarnings(path: string, value: Record<string, unknown>): ConfigWarning[] {
  return scrubForbiddenKeys(value).map((key) => ({
    source: "settings",
    message: `Ignoring forbidden key "${key}" in ${path}`,
    path,
  }));
}
