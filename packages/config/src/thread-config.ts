/**
 * Everything a thread start needs from configuration in one call: effective
 * settings, context files, the chosen system prompt files and discovered resources,
 * with every warning gathered in the order a user would want to read them.
 */
import { type ContextFile, loadContextFiles } from "./context-files.ts";
import { type LoadedSettings, loadSettings } from "./load-settings.ts";
import { type DiscoveredResources, discoverResources } from "./resources.ts";
import { resolveSystemPromptFiles, type SystemPromptFiles } from "./system-prompt.ts";
import type { ConfigWarning } from "./warning.ts";

/** What `loadThreadConfig` reads. */
export interface LoadThreadConfigOptions {
  agentDir: string;
  cwd: string;
}

/** A thread's configuration; project-local parts are present only when the project is trusted. */
export interface ThreadConfig {
  settings: LoadedSettings;
  contextFiles: ContextFile[];
  systemPromptFiles: SystemPromptFiles;
  resources: DiscoveredResources;
  /** Settings, trust, context-file and resource warnings together. */
  warnings: ConfigWarning[];
}

/** Loads settings first (trust decides the rest), then the other parts in parallel. */
export async function loadThreadConfig(options: LoadThreadConfigOptions): Promise<ThreadConfig> {
  const { agentDir, cwd } = options;
  const settings = await loadSettings({ agentDir, cwd });
  // Project-local files come from the directory trust was decided for.
  const projectDir = settings.projectDir;
  const [context, systemPromptFiles, resources] = await Promise.all([
    loadContextFiles({ agentDir, cwd }),
    resolveSystemPromptFiles({ agentDir, cwd: projectDir, trusted: settings.trusted }),
    discoverResources({
      agentDir,
      cwd: projectDir,
      trusted: settings.trusted,
      globalSettings: settings.globalSettings,
      projectSettings: settings.projectSettings,
    }),
  ]);
  return {
    settings,
    contextFiles: context.files,
    systemPromptFiles,
    resources,
    warnings: [...settings.warnings, ...context.warnings, ...resources.warnings],
  };
}
