/**
 * Resource discovery across every source, in precedence order: the trusted project's
 * `.knightcode/` folders, the agent dir, then paths and local packages from settings
 * (project settings only when trusted). The first resource of a name wins; later
 * ones of the same name are reported, not dropped silently.
 */
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { isPlainObject } from "./dotted-key.ts";
import { agentPaths, expandPath, projectPaths } from "./paths.ts";
import {
  type ExtensionResource,
  extensionsAt,
  extensionsIn,
  type Found,
  type PromptTemplateResource,
  pathKind,
  promptsAt,
  type ResourceOrigin,
  type SkillResource,
  skillsAt,
  skillsIn,
  type ThemeResource,
  themesAt,
} from "./resource-kinds.ts";
import type { ConfigWarning } from "./warning.ts";

/** What resource discovery reads. Project folders and settings count only when `trusted`. */
export interface DiscoverResourcesOptions {
  agentDir: string;
  cwd?: string;
  trusted: boolean;
  /** Migrated global settings (null when absent or unreadable). */
  globalSettings: Record<string, unknown> | null;
  /** Migrated project settings; ignored unless trusted. */
  projectSettings: Record<string, unknown> | null;
}

/** Every discovered resource plus the refused loads. */
export interface DiscoveredResources {
  extensions: ExtensionResource[];
  skills: SkillResource[];
  prompts: PromptTemplateResource[];
  themes: ThemeResource[];
  warnings: ConfigWarning[];
}

type Kind = "extensions" | "skills" | "prompts" | "themes";

interface Source {
  kind: Kind;
  path: string;
  origin: ResourceOrigin;
  /** Named explicitly (settings/packages): a missing path is worth a warning. */
  explicit: boolean;
}

const KINDS: readonly Kind[] = ["extensions", "skills", "prompts", "themes"];

/** Finds extensions, skills, prompt templates and themes from every allowed source. */
export async function discoverResources(options: DiscoverResourcesOptions): Promise<DiscoveredResources> {
  return discoverFrom(collectSources(options));
}

async function discoverFrom(sources: readonly Source[]): Promise<DiscoveredResources> {
  const result: DiscoveredResources = { extensions: [], skills: [], prompts: [], themes: [], warnings: [] };
  const seenPaths = new Set<string>();
  const seenNames: Record<Kind, Map<string, string>> = {
    extensions: new Map(),
    skills: new Map(),
    prompts: new Map(),
    themes: new Map(),
  };
  for (const source of sources) {
    let found: Found<{ path: string; name?: string }>;
    try {
      found = await scan(source);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      const kindSource = source.kind === "extensions" ? "extension" : "settings";
      result.warnings.push({
        source: kindSource,
        path: source.path,
        message: `Cannot read ${source.path}: ${detail}`,
      });
      continue;
    }
    result.warnings.push(...found.warnings);
    for (const item of found.items) {
      const real = await realpath(item.path).catch(() => item.path);
      if (seenPaths.has(`${source.kind}:${real}`)) continue;
      seenPaths.add(`${source.kind}:${real}`);
      if (item.name !== undefined) {
        const first = seenNames[source.kind].get(item.name);
        if (first !== undefined) {
          result.warnings.push({
            source: "settings",
            path: item.path,
            message: `Not loading ${item.path}: ${source.kind.slice(0, -1)} "${item.name}" is already loaded from ${first}`,
          });
          continue;
        }
        seenNames[source.kind].set(item.name, item.path);
      }
      (result[source.kind] as unknown[]).push(item);
    }
  }
  return result;
}

function scan(source: Source): Promise<Found<{ path: string; name?: string }>> {
  switch (source.kind) {
    case "extensions":
      return source.explicit
        ? extensionsAt(source.path, source.origin)
        : extensionsIn(source.path, source.origin);
    case "skills":
      return source.explicit ? skillsAt(source.path, source.origin) : skillsIn(source.path, source.origin);
    case "prompts":
      return promptsAt(source.path, source.origin, source.explicit);
    case "themes":
      return themesAt(source.path, source.origin, source.explicit);
  }
}

function collectSources(options: DiscoverResourcesOptions): Source[] {
  const agent = agentPaths(options.agentDir);
  const useProject = options.trusted && options.cwd !== undefined;
  const project = options.cwd !== undefined ? projectPaths(options.cwd) : null;
  const sources: Source[] = [];
  for (const kind of KINDS) {
    if (useProject && project !== null)
      sources.push({ kind, path: project[kind], origin: "project", explicit: false });
    sources.push({ kind, path: agent[kind], origin: "agent", explicit: false });
  }
  const scoped: Array<[Record<string, unknown> | null, string]> = [];
  if (useProject && project !== null) scoped.push([options.projectSettings, project.dir]);
  scoped.push([options.globalSettings, agent.dir]);
  for (const [settings, base] of scoped) {
    if (settings === null) continue;
    for (const kind of KINDS) {
      for (const entry of stringList(settings[kind])) {
        sources.push({ kind, path: expandPath(entry, base), origin: "settings", explicit: true });
      }
    }
    for (const pkg of packageDirs(settings.packages, base)) {
      for (const kind of KINDS) {
        sources.push({ kind, path: join(pkg, kind), origin: "package", explicit: false });
      }
    }
  }
  return sources;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string" && v.trim() !== "")
    : [];
}

/** Local package folders named in `packages`; registry and git sources are installed elsewhere. */
function packageDirs(value: unknown, base: string): string[] {
  if (!Array.isArray(value)) return [];
  const dirs: string[] = [];
  for (const entry of value) {
    const source = typeof entry === "string" ? entry : isPlainObject(entry) ? entry.source : undefined;
    if (typeof source !== "string") continue;
    if (/^(\.{1,2}[\\/]|[\\/]|~)/.test(source)) dirs.push(expandPath(source, base));
  }
  return dirs;
}

/** True when a project's `.knightcode/` holds anything project trust would gate. */
export async function projectHasLoadableResources(cwd: string): Promise<boolean> {
  const project = projectPaths(cwd);
  if ((await pathKind(project.dir)) !== "dir") return false;
  for (const file of [project.settings, project.systemPrompt, project.appendSystemPrompt]) {
    if ((await pathKind(file)) === "file") return true;
  }
  const sources = KINDS.map(
    (kind): Source => ({ kind, path: project[kind], origin: "project", explicit: false }),
  );
  const found = await discoverFrom(sources);
  return found.extensions.length + found.skills.length + found.prompts.length + found.themes.length > 0;
}
