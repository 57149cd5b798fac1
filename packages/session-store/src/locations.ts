/**
 * Where transcripts live: the agent dir, the per-project directory layout, the
 * session-dir override order and file naming.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/** Folder beside the live transcripts that holds archived ones (same file names). */
export const ARCHIVE_DIR_NAME = "archive";

/** Environment variables the store reads. */
export interface SessionEnv {
  KNIGHTCODE_CODING_AGENT_DIR?: string;
  KNIGHTCODE_CODING_AGENT_SESSION_DIR?: string;
  [name: string]: string | undefined;
}

function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(home, path.slice(2));
  return path;
}

/** `KNIGHTCODE_CODING_AGENT_DIR`, else `~/.knightcode/agent`. */
export function resolveAgentDir(env: SessionEnv, home: string = homedir()): string {
  const fromEnv = env.KNIGHTCODE_CODING_AGENT_DIR;
  if (fromEnv && fromEnv.trim() !== "") return resolve(expandHome(fromEnv, home));
  return join(home, ".knightcode", "agent");
}

/** Root of the per-project layout: `<agent-dir>/sessions`. */
export function sessionsRoot(agentDir: string): string {
  return join(agentDir, "sessions");
}

/** `--<cwd without leading slash, with / \ : replaced by ->--`. */
export function projectDirName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/** `<ISO time with : and . replaced by ->_<id>.jsonl`. */
export function sessionFileName(timestamp: string, id: string): string {
  return `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`;
}

/** Inputs of the session-dir decision, highest precedence first. */
export interface SessionDirInput {
  /** `--session-dir` from the command line. */
  cliSessionDir?: string | undefined;
  env: SessionEnv;
  /** The global `sessionDir` setting. */
  settingsSessionDir?: string | undefined;
  agentDir: string;
  /** The thread's project directory (used by the per-project layout). */
  cwd: string;
  /** Base for relative overrides; defaults to the process working directory. */
  baseDir?: string;
  home?: string;
}

/** The directory a new thread's transcript goes into, and whether it came from an override. */
export interface SessionDirChoice {
  dir: string;
  source: "cli" | "env" | "settings" | "project";
}

/** `--session-dir`, then `KNIGHTCODE_CODING_AGENT_SESSION_DIR`, then `sessionDir`; else per project. */
export function resolveSessionDir(input: SessionDirInput): SessionDirChoice {
  const home = input.home ?? homedir();
  const base = input.baseDir ?? process.cwd();
  const pick = (value: string | undefined): string | undefined =>
    value !== undefined && value.trim() !== "" ? value : undefined;
  const absolute = (value: string): string => {
    const expanded = expandHome(value, home);
    return isAbsolute(expanded) ? resolve(expanded) : resolve(base, expanded);
  };
  const cli = pick(input.cliSessionDir);
  if (cli) return { dir: absolute(cli), source: "cli" };
  const env = pick(input.env.KNIGHTCODE_CODING_AGENT_SESSION_DIR);
  if (env) return { dir: absolute(env), source: "env" };
  const settings = pick(input.settingsSessionDir);
  if (settings) return { dir: absolute(settings), source: "settings" };
  return { dir: join(sessionsRoot(input.agentDir), projectDirName(input.cwd)), source: "project" };
}

/** The `archive/` folder beside a directory of live transcripts. */
export function archiveDirOf(liveDir: string): string {
  return join(liveDir, ARCHIVE_DIR_NAME);
}
