/**
 * One read of one settings file: version, migrated settings and the parse warning all
 * come from the same bytes.
 */
import { parseJsonObject, readRawFile } from "./json-file.ts";
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
  if (!parsed.ok) {
    const { message, line, column } = parsed.failure;
    const warning: ConfigWarning = { source: "settings", message: `Cannot parse ${path}: ${message}`, path };
    if (line !== undefined) warning.line = line;
    if (column !== undefined) warning.column = column;
    return { settings: null, warnings: [warning] };
  }
  const settings = parsed.value;
  const warnings: ConfigWarning[] = scrubForbiddenKeys(settings).map((key) => ({
    source: "settings",
    message: `Ignoring forbidden settings key "${key}" in ${path}`,
    path,
  }));
  migrateSettings(settings);
  return { settings, warnings };
}
