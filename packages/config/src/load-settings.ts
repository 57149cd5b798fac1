/**
 * Effective settings for a thread: the merged settings, the trust state and every
 * warning a thread start should surface (malformed settings, undecided trust).
 */

import { resolve } from "node:path";
import { composeConfig, readScopes } from "./config-read.ts";
import type { SettingsScope } from "./merge.ts";
import { type ProjectTrust, readProjectTrustAt, trustKey } from "./trust-store.ts";
import type { ConfigWarning } from "./warning.ts";

/** What `loadSettings` reads. */
export interface LoadSettingsOptions {
  agentDir: string;
  cwd: string;
}

/** Settings as a thread uses them. */
export interface LoadedSettings {
  /** Merged (project over global when trusted), migrated settings. */
  settings: Record<string, unknown>;
  /** Migrated global settings, or null when absent or unparseable. */
  globalSettings: Record<string, unknown> | null;
  /** Migrated project settings, or null when absent, unparseable or not trusted. */
  projectSettings: Record<string, unknown> | null;
  origins: Record<string, SettingsScope>;
  versions: { global: string; project?: string };
  trust: ProjectTrust;
  /**
   * The project's real path, as trust was decided for it. Every project-local file
   * (SYSTEM.md, resources) must be read below this, not below the caller's cwd again.
   */
  projectDir: string;
  /** True when project-local resources may load. */
  trusted: boolean;
  warnings: ConfigWarning[];
}

/**
 * Loads settings for a working directory. A corrupt trust store does not stop a
 * thread: the project is treated as untrusted and a `trust` warning says why.
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<LoadedSettings> {
  const { agentDir, cwd } = options;
  const warnings: ConfigWarning[] = [];
  let trust: ProjectTrust;
  let projectDir = resolve(cwd);
  try {
    projectDir = await trustKey(cwd);
    trust = await readProjectTrustAt(agentDir, projectDir);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    warnings.push({
      source: "trust",
      message: `Project trust unknown, not loading project resources: ${detail}`,
    });
    trust = { trusted: null, needsTrust: false };
  }
  if (trust.trusted === null && trust.needsTrust) {
    warnings.push({
      source: "trust",
      path: cwd,
      message: `Project ${cwd} has .knightcode/ resources that are not loaded until the project is trusted`,
    });
  }
  const trusted = trust.trusted === true;
  const reads = await readScopes(agentDir, trusted ? projectDir : null);
  const composed = composeConfig(reads, true);
  warnings.push(...composed.errors);
  return {
    settings: composed.settings,
    globalSettings: reads.global.settings,
    projectSettings: reads.project?.settings ?? null,
    origins: composed.origins,
    versions: composed.versions,
    trust,
    projectDir,
    trusted,
    warnings,
  };
}
