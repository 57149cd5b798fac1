/**
 * Where configuration lives: the agent directory and its file table, the project
 * `.knightcode/` table, and the session directory override order.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/** Environment variable naming the agent directory. */
export const AGENT_DIR_ENV = "KNIGHTCODE_CODING_AGENT_DIR";
/** Environment variable naming a flat session directory. */
export const SESSION_DIR_ENV = "KNIGHTCODE_CODING_AGENT_SESSION_DIR";
/** Name of the project configuration directory under the working directory. */
export const PROJECT_CONFIG_DIR = ".knightcode";

/** Expands a leading `~` and makes the path absolute against `base`. */
export function expandPath(path: string, base: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(base, path);
}

/** The agent directory: `KNIGHTCODE_CODING_AGENT_DIR`, else `~/.knightcode/agent`. */
export function resolveAgentDir(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env[AGENT_DIR_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return expandPath(fromEnv.trim(), process.cwd());
  return join(homedir(), ".knightcode", "agent");
}

/** Every file and folder of the agent directory table. */
export interface AgentPaths {
  dir: string;
  settings: string;
  keybindings: string;
  models: string;
  auth: string;
  tools: string;
  /** Server-owned project trust decisions. */
  trust: string;
  systemPrompt: string;
  appendSystemPrompt: string;
  extensions: string;
  skills: string;
  prompts: string;
  themes: string;
  /** Default per-project session layout root. */
  sessions: string;
}

/** The agent directory's file table. */
export function agentPaths(agentDir: string): AgentPaths {
  const dir = resolve(agentDir);
  return {
    dir,
    settings: join(dir, "settings.json"),
    keybindings: join(dir, "keybindings.json"),
    models: join(dir, "models.json"),
    auth: join(dir, "auth.json"),
    tools: join(dir, "tools.json"),
    trust: join(dir, "trusted-projects.json"),
    systemPrompt: join(dir, "SYSTEM.md"),
    appendSystemPrompt: join(dir, "APPEND_SYSTEM.md"),
    extensions: join(dir, "extensions"),
    skills: join(dir, "skills"),
    prompts: join(dir, "prompts"),
    themes: join(dir, "themes"),
    sessions: join(dir, "sessions"),
  };
}

/** Every file and folder of a project's `.knightcode/` table. */
export interface ProjectPaths {
  dir: string;
  settings: string;
  systemPrompt: string;
  appendSystemPrompt: string;
  extensions: string;
  skills: string;
  prompts: string;
  themes: string;
}

/** The project `.knightcode/` table for a working directory. */
export function projectPaths(cwd: string): ProjectPaths {
  const dir = join(resolve(cwd), PROJECT_CONFIG_DIR);
  return {
    dir,
    settings: join(dir, "settings.json"),
    systemPrompt: join(dir, "SYSTEM.md"),
    appendSystemPrompt: join(dir, "APPEND_SYSTEM.md"),
    extensions: join(dir, "extensions"),
    skills: join(dir, "skills"),
    prompts: join(dir, "prompts"),
    themes: join(dir, "themes"),
  };
}
