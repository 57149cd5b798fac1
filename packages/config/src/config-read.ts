/**
 * `config/read`: global settings, plus trusted project settings merged over them.
 * Settings, origins, versions and parse errors all come from one read of each file.
 */

import { NO_VERSION } from "./json-file.ts";
import { deepMerge, mergeOrigins, type SettingsScope } from "./merge.ts";
import { agentPaths, projectPaths } from "./paths.ts";
import { readSettingsFile, type SettingsFileRead } from "./settings-file.ts";
import { readTrustDecisionAt, trustKey } from "./trust-store.ts";
import type { ConfigWarning } from "./warning.ts";

/** Where to read from; without `cwd` only global settings are read. */
export interface ReadConfigOptions {
  agentDir: string;
  cwd?: string;
}

/** The `config/read` result. */
export interface ConfigReadResult {
  settings: Record<string, unknown>;
  /** Dotted leaf key -> the scope that supplied it. */
  origins: Record<string, SettingsScope>;
  /** SHA-256 of each scope's raw contents, or "none" when absent or not read. */
  versions: { global: string; project?: string };
  /** Parse failures and ignored keys, as `source: "settings"` warnings. */
  errors: ConfigWarning[];
}

/** Both scopes as read, before shaping for the wire. */
export interface ScopeReads {
  global: SettingsFileRead;
  /** Null when no cwd was given or the project is not explicitly trusted. */
  project: SettingsFileRead | null;
}

/**
 * Reads the global file and, when given, the project file below `trustedProjectDir`: the
 * `trustKey` the trust decision was made for, never a path resolved again afterwards.
 */
export async function readScopes(agentDir: string, trustedProjectDir: string | null): Promise<ScopeReads> {
  const [global, project] = await Promise.all([
    readSettingsFile(agentPaths(agentDir).settings),
    trustedProjectDir === null ? null : readSettingsFile(projectPaths(trustedProjectDir).settings),
  ]);
  return { global, project };
}

/** Shapes scope reads into the `config/read` result. */
export function composeConfig(reads: ScopeReads, withProject: boolean): ConfigReadResult {
  const globalSettings = reads.global.settings ?? {};
  const projectSettings = reads.project?.settings ?? null;
  const settings = deepMerge(globalSettings, projectSettings ?? {});
  const versions: ConfigReadResult["versions"] = { global: reads.global.version };
  if (withProject) versions.project = reads.project?.version ?? NO_VERSION;
  return {
    settings,
    origins: mergeOrigins(settings, projectSettings),
    versions,
    errors: [...reads.global.warnings, ...(reads.project?.warnings ?? [])],
  };
}

/** `config/read`. Storage and lock failures (including a corrupt trust store) throw `internal`. */
export async function readConfig(options: ReadConfigOptions): Promise<ConfigReadResult> {
  const { agentDir, cwd } = options;
  const key = cwd === undefined ? null : await trustKey(cwd);
  const trusted = key !== null && (await readTrustDecisionAt(agentDir, key)) === true;
  return composeConfig(await readScopes(agentDir, trusted ? key : null), cwd !== undefined);
}
