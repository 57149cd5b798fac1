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

/**
 * Builds the prompt for one thread; context-file problems are ignored here (they are
 * reported at load). SYSTEM.md / APPEND_SYSTEM.md are read below `projectDir`, the real
 * path `trusted` was decided for, so a symlink swapped in since cannot redirect the read.
 */
export async function threadSystemPrompt(options: {
  agentDir: string;
  cwd: string;
  projectDir: string;
  trusted: boolean;
  tools: readonly AnyAgentTool[];
  now: number;
}): Promise<string> {
  const [files, context] = await Promise.all([
    resolveSystemPromptFiles({
      agentDir: options.agentDir,
      cwd: options.projectDir,
      trusted: options.trusted,
    }),
    loadContextFiles({ agentDir: options.agentDir, cwd: options.cwd }),
  ]);
  return buildSystemPrompt({
    defaultPrompt: DEFAULT_SYSTEM_PROMPT,
    tools: options.tools.map((t) => ({ name: t.name, description: t.description })),
    contextFiles: context.files,
    files,
    date: new Date(options.now),
    cwd: options.cwd,
  });
}
