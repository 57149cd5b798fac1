/**
 * `command/list`: what a desktop client can run from `turn/start` text, without the
 * leading `/`: the built-in commands this manager implements, extension commands,
 * prompt templates, skills as `skill:<name>`, and the prompts of a loaded thread's ready
 * MCP servers as `mcp__<server>__<prompt>`. Terminal-only built-ins (`usage`,
 * `llama`, `undo`) are never listed. For a cwd the list is what a new thread there would
 * offer, from settings and resource discovery only: nothing starts (so no MCP prompts),
 * nothing is written.
 */
import type { Command, CommandSource } from "@knightcode/app-server-protocol";
import { discoverResources, type PromptTemplateResource, type SkillResource } from "@knightcode/config";
import type { McpPromptCommand } from "@knightcode/mcp";
import { type LoaderContext, readProjectSettings } from "../threads/thread-loader.ts";

/** Built-in commands interpreted in `turn/start` text. */
export const BUILTIN_COMMANDS: readonly Command[] = [
  {
    name: "compact",
    description: "Summarize the conversation to free context; optional instructions focus the summary",
  },
  { name: "name", description: "Set this thread's name" },
  { name: "new", description: "Start a new thread in this project" },
  { name: "fork", description: "Continue in a copy of this thread" },
  { name: "reload", description: "Shut this thread's extensions down and load them again" },
];

/** Never offered to clients: they only work in the terminal. */
export const TERMINAL_ONLY_COMMANDS: ReadonlySet<string> = new Set(["usage", "llama", "undo"]);

/** Where a project's commands come from: the project as trust was decided for it. */
export interface CommandSources {
  agentDir: string;
  /** The project's real path (trust key); project resources are read below it. */
  projectDir: string;
  trusted: boolean;
  globalSettings: Record<string, unknown> | null;
  projectSettings: Record<string, unknown> | null;
}

/** Prompt templates and skills a project offers, and a loaded thread's MCP prompts. */
export interface DiscoveredCommands {
  prompts: PromptTemplateResource[];
  skills: SkillResource[];
  mcpPrompts?: McpPromptCommand[];
}

/** Discovers a project's prompt templates and skills through config's resource discovery. */
export async function discoverCommands(sources: CommandSources): Promise<DiscoveredCommands> {
  const resources = await discoverResources({
    agentDir: sources.agentDir,
    cwd: sources.projectDir,
    trusted: sources.trusted,
    globalSettings: sources.globalSettings,
    projectSettings: sources.projectSettings,
  });
  return { prompts: resources.prompts, skills: resources.skills };
}

/**
 * The commands of a project plus the given extension commands and MCP prompts,
 * deduplicated by name (first wins, the same order input expansion looks them up in).
 */
export async function listCommands(
  sources: CommandSources,
  extensionCommands: readonly Command[],
  mcpPrompts: readonly McpPromptCommand[] = [],
): Promise<Command[]> {
  const found = await discoverCommands(sources);
  const out: Command[] = [];
  const seen = new Set<string>(TERMINAL_ONLY_COMMANDS);
  const add = (command: Command, source: CommandSource, args?: Command["arguments"]) => {
    if (seen.has(command.name)) return;
    seen.add(command.name);
    out.push({
      name: command.name,
      description: command.description,
      source,
      ...(args ? { arguments: args } : {}),
    });
  };
  for (const command of BUILTIN_COMMANDS) add(command, "builtin");
  for (const command of extensionCommands) add(command, "extension");
  for (const prompt of found.prompts) add(prompt, "template");
  for (const skill of found.skills)
    add({ name: `skill:${skill.name}`, description: skill.description }, "skill");
  // An MCP prompt's declared arguments go with it (an empty list: it takes none).
  for (const prompt of mcpPrompts) add(prompt, "mcp", prompt.arguments);
  return out;
}

/** A loaded thread's command sources, as its load decided trust. */
export function runtimeCommandSources(
  agentDir: string,
  runtime: {
    cwd: string;
    projectDir: string;
    trusted: boolean;
    settingsSources: { global: Record<string, unknown> | null; project: Record<string, unknown> | null };
    extensions?: { resources?(): { skillPaths: string[]; promptPaths: string[] } };
  },
): CommandSources {
  return {
    agentDir,
    projectDir: runtime.projectDir || runtime.cwd,
    trusted: runtime.trusted,
    globalSettings: withExtensionResources(runtime.settingsSources.global, runtime.extensions?.resources?.()),
    projectSettings: runtime.settingsSources.project,
  };
}

/**
 * Skills and prompt templates the thread's extensions named (`resources_discover`) join
 * the global settings' explicit `skills`/`prompts` paths, so discovery reads them the
 * same way (a missing one is a warning).
 */
function withExtensionResources(
  settings: Record<string, unknown> | null,
  resources: { skillPaths: string[]; promptPaths: string[] } | undefined,
): Record<string, unknown> | null {
  if (!resources || (resources.skillPaths.length === 0 && resources.promptPaths.length === 0))
    return settings;
  const list = (value: unknown) => (Array.isArray(value) ? value : []);
  return {
    ...settings,
    skills: [...list(settings?.skills), ...resources.skillPaths],
    prompts: [...list(settings?.prompts), ...resources.promptPaths],
  };
}

/** A project's command sources read now (a `command/list` for a cwd or an unloaded thread). */
export async function projectCommandSources(ctx: LoaderContext, cwd: string): Promise<CommandSources> {
  const project = await readProjectSettings(ctx, cwd);
  return {
    agentDir: ctx.agentDir,
    projectDir: project.projectDir,
    trusted: project.trusted,
    globalSettings: project.globalSettings,
    projectSettings: project.projectSettings,
  };
}
