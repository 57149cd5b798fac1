/**
 * Context files (AGENTS.md and friends) from the agent dir, then every directory from
 * the filesystem root down to the working directory. Each directory contributes at most
 * one file; `AGENTS.override.md` wins only within its own directory. No trust needed:
 * these are instructions, not code or settings. Because no one has vetted the project,
 * a context file there that is a symlink must resolve inside its own directory
 * (`CLAUDE.md -> AGENTS.md` is fine; `AGENTS.md -> ~/.ssh/id_rsa` would send a secret to
 * the model), and only regular files are read (a FIFO or /dev/zero must not hang us).
 */
import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { isErrnoCode } from "./errors.ts";
import { readRegularFile } from "./json-file.ts";
import type { ConfigWarning } from "./warning.ts";

/** Candidate names in precedence order within one directory. */
export const CONTEXT_FILE_NAMES = [
  "AGENTS.override.md",
  "AGENTS.md",
  "AGENTS.MD",
  "CLAUDE.md",
  "CLAUDE.MD",
] as const;

/** One loaded context file. */
export interface ContextFile {
  path: string;
  content: string;
  /** "agent" for the agent-dir file, else "project" (the cwd or one of its parents). */
  scope: "agent" | "project";
}

/** What to search. */
export interface LoadContextFilesOptions {
  agentDir: string;
  cwd: string;
}

/** Context files in prompt order: agent dir first, then outermost directory to the cwd. */
export async function loadContextFiles(
  options: LoadContextFilesOptions,
): Promise<{ files: ContextFile[]; warnings: ConfigWarning[] }> {
  const warnings: ConfigWarning[] = [];
  const files: ContextFile[] = [];
  const seen = new Set<string>();
  const agentDir = await realpathOr(resolve(options.agentDir));
  const dirs: Array<[string, ContextFile["scope"]]> = [[agentDir, "agent"]];
  for (const dir of ancestors(await realpathOr(resolve(options.cwd)))) dirs.push([dir, "project"]);
  for (const [dir, scope] of dirs) {
    if (seen.has(dir)) continue;
    seen.add(dir);
    const file = await firstContextFile(dir, scope === "project", warnings);
    if (file !== null) files.push({ ...file, scope });
  }
  return { files, warnings };
}

/** Directories from the root down to `dir`. */
function ancestors(dir: string): string[] {
  const chain: string[] = [];
  let current = dir;
  for (;;) {
    chain.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return chain.reverse();
}

async function realpathOr(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path; // a missing directory simply has no context files
  }
}

async function firstContextFile(
  dir: string,
  confined: boolean,
  warnings: ConfigWarning[],
): Promise<{ path: string; content: string } | null> {
  for (const name of CONTEXT_FILE_NAMES) {
    const path = join(dir, name);
    try {
      if (confined && !isInside(await realpath(path), dir)) {
        warnings.push({
          source: "server",
          path,
          message: `Not loading context file ${path}: it links outside ${dir}`,
        });
        continue;
      }
      const content = await readRegularFile(path);
      if (content !== null) return { path, content };
    } catch (error) {
      if (isErrnoCode(error, "ENOENT", "ENOTDIR", "EISDIR")) continue;
      const detail = error instanceof Error ? error.message : String(error);
      warnings.push({ source: "server", path, message: `Cannot read context file ${path}: ${detail}` });
    }
  }
  return null;
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
