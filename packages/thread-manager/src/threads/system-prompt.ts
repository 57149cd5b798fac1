/**
 * The system prompt a thread's agent runs with, assembled by `@knightcode/config` from
 * KnightCode's default prompt, SYSTEM.md / APPEND_SYSTEM.md (project files only when the
 * project is trusted), context files and the working directory.
 */
import type { AnyAgentTool } from "@knightcode/agent";
import { buildSystemPrompt, loadContextFiles, resolveSystemPromptFiles } from "@knightcode/config";

/** KnightCode's built-in prompt, replaced wholesale by a SYSTEM.md. */
export const DEFAULT_SYSTEM_PROMPT = [
  "You are KnightCode, a coding agent working in the user's project folder.",
  "Read before you change, keep changes small and focused, and say what you did.",
  "Use the tools to inspect and modify files and to run commands; ask the user when a decision is theirs.",
].join("\n");

/** What a thread's prompt is built from that does not change between its turns. */
export interface PromptSources {
  files: Awaited<ReturnType<typeof resolveSystemPromptFiles>>;
  contextFiles: Awaited<ReturnType<typeof loadContextFiles>>["files"];
}

/** The inputs `PromptSources` are read for; a different key means a fresh read. */
export interface PromptSourcesInput {
  agentDir: string;
  cwd: string;
  projectDir: string;
  trusted: boolean;
}

/**
 * Reads SYSTEM.md / APPEND_SYSTEM.md and the context files. SYSTEM.md / APPEND_SYSTEM.md
 * are read below `projectDir`, the real path `trusted` was decided for, so a symlink
 * swapped in since cannot redirect the read.
 */
export async function readPromptSources(options: PromptSourcesInput): Promise<PromptSources> {
  const [files, context] = await Promise.all([
    resolveSystemPromptFiles({
      agentDir: options.agentDir,
      cwd: options.projectDir,
      trusted: options.trusted,
    }),
    loadContextFiles({ agentDir: options.agentDir, cwd: options.cwd }),
  ]);
  return { files, contextFiles: context.files };
}

/**
 * Per-load cache of `PromptSources`: read once per thread load (as the terminal does at
 * startup), reread when its inputs change (trust, project dir). A failed read is not kept.
 */
export class PromptSourcesCache {
  private cached: { key: string; value: Promise<PromptSources> } | undefined;

  get(input: PromptSourcesInput, read = readPromptSources): Promise<PromptSources> {
    const key = JSON.stringify([input.agentDir, input.cwd, input.projectDir, input.trusted]);
    if (this.cached?.key === key) return this.cached.value;
    const value = read(input);
    const entry = { key, value };
    this.cached = entry;
    value.catch(() => {
      if (this.cached === entry) this.cached = undefined;
    });
    return value;
  }

  /** Forgets the sources; the next turn reads them again. */
  invalidate(): void {
    this.cached = undefined;
  }
}

/**
 * Builds the prompt for one thread; context-file problems are ignored here (they are
 * reported at load). `sources` are the thread's cached prompt sources, else read now.
 */
export async function threadSystemPrompt(options: {
  agentDir: string;
  cwd: string;
  projectDir: string;
  trusted: boolean;
  tools: readonly AnyAgentTool[];
  now: number;
  sources?: Promise<PromptSources>;
}): Promise<string> {
  const { files, contextFiles } = await (options.sources ?? readPromptSources(options));
  return buildSystemPrompt({
    defaultPrompt: DEFAULT_SYSTEM_PROMPT,
    tools: options.tools.map((t) => ({ name: t.name, description: t.description })),
    contextFiles,
    files,
    date: new Date(options.now),
    cwd: options.cwd,
  });
}
