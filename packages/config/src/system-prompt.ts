/**
 * SYSTEM.md / APPEND_SYSTEM.md resolution and system prompt assembly. For each of the
 * two files the trusted project's copy replaces the agent dir's; they are never combined.
 */
import type { ContextFile } from "./context-files.ts";
import { isErrnoCode, storageFailure } from "./errors.ts";
import { readRegularFile } from "./json-file.ts";
import { agentPaths, projectPaths } from "./paths.ts";

/** A prompt file chosen for use. */
export interface PromptFile {
  path: string;
  content: string;
}

/** The chosen replacement and appended system prompt files, when any exist. */
export interface SystemPromptFiles {
  system: PromptFile | null;
  append: PromptFile | null;
}

/** Where to look; the project is consulted only when `trusted`. */
export interface ResolveSystemPromptFilesOptions {
  agentDir: string;
  cwd?: string;
  trusted: boolean;
}

/** Picks SYSTEM.md and APPEND_SYSTEM.md: trusted project first, else agent dir. */
export async function resolveSystemPromptFiles(
  options: ResolveSystemPromptFilesOptions,
): Promise<SystemPromptFiles> {
  const agent = agentPaths(options.agentDir);
  const project = options.trusted && options.cwd !== undefined ? projectPaths(options.cwd) : null;
  const pick = async (projectPath: string | undefined, agentPath: string): Promise<PromptFile | null> =>
    (projectPath !== undefined ? await readOptional(projectPath) : null) ?? (await readOptional(agentPath));
  const [system, append] = await Promise.all([
    pick(project?.systemPrompt, agent.systemPrompt),
    pick(project?.appendSystemPrompt, agent.appendSystemPrompt),
  ]);
  return { system, append };
}

async function readOptional(path: string): Promise<PromptFile | null> {
  try {
    const content = await readRegularFile(path);
    return content === null ? null : { path, content };
  } catch (error) {
    if (isErrnoCode(error, "ENOTDIR")) return null;
    throw storageFailure(`Cannot read ${path}`, error);
  }
}

/** A tool as the system prompt lists it. */
export interface PromptTool {
  name: string;
  description: string;
}

/** A skill as the system prompt advertises it (its body is read on demand). */
export interface PromptSkill {
  name: string;
  description: string;
  path: string;
}

/** Everything the assembled system prompt is made from. */
export interface BuildSystemPromptOptions {
  /** KnightCode's built-in prompt, used unless SYSTEM.md replaces it. */
  defaultPrompt: string;
  tools: readonly PromptTool[];
  contextFiles: readonly ContextFile[];
  files?: SystemPromptFiles;
  skills?: readonly PromptSkill[];
  /** Rendered as an ISO date (YYYY-MM-DD). */
  date: Date;
  cwd: string;
}

/**
 * Assembles the system prompt: the base (SYSTEM.md or the default with the tool list),
 * APPEND_SYSTEM.md, the context files, the skills, then date and working directory.
 */
export function buildSystemPrompt(options: BuildSystemPromptOptions): string {
  const parts: string[] = [];
  const custom = options.files?.system;
  if (custom) {
    parts.push(custom.content.trim());
  } else {
    parts.push(options.defaultPrompt.trim());
    if (options.tools.length > 0) {
      parts.push(
        ["Available tools:", ...options.tools.map((t) => `- ${t.name}: ${t.description}`)].join("\n"),
      );
    }
  }
  const append = options.files?.append?.content.trim();
  if (append) parts.push(append);
  const context = options.contextFiles.filter((f) => f.content.trim() !== "");
  if (context.length > 0) {
    parts.push(
      [
        "# Project Context",
        "Instructions from context files; later (nearer) files take precedence.",
        ...context.map((f) => `## ${f.path}\n\n${f.content.trim()}`),
      ].join("\n\n"),
    );
  }
  if (options.skills && options.skills.length > 0) {
    parts.push(
      [
        "# Skills",
        "Read a skill's file when its description matches the task.",
        ...options.skills.map((s) => `- ${s.name} (${s.path}): ${s.description}`),
      ].join("\n"),
    );
  }
  parts.push(
    `Current date: ${options.date.toISOString().slice(0, 10)}\nCurrent working directory: ${options.cwd}`,
  );
  return parts.filter((p) => p !== "").join("\n\n");
}
