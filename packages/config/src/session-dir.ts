/**
 * Where sessions are stored. Resolved before (and without) project trust: the
 * `--session-dir` flag, then `KNIGHTCODE_CODING_AGENT_SESSION_DIR`, then the global
 * `sessionDir` setting; otherwise the per-project layout under the agent dir.
 */
import { agentPaths, expandPath, SESSION_DIR_ENV } from "./paths.ts";
import { readSettingsFile } from "./settings-file.ts";
import type { ConfigWarning } from "./warning.ts";

/** Inputs of session directory resolution. */
export interface ResolveSessionDirOptions {
  agentDir: string;
  /** The `--session-dir` flag, resolved against the process cwd. */
  flag?: string;
  env?: Record<string, string | undefined>;
}

/** A flat override directory, or the default per-project layout root. */
export interface SessionDirResolution {
  dir: string;
  /** "default" means the per-project layout below `dir`. */
  source: "flag" | "env" | "settings" | "default";
  warnings: ConfigWarning[];
}

/** Resolves the session directory; a malformed global settings file only adds a warning. */
export async function resolveSessionDir(options: ResolveSessionDirOptions): Promise<SessionDirResolution> {
  const env = options.env ?? process.env;
  if (options.flag !== undefined && options.flag.trim() !== "") {
    return { dir: expandPath(options.flag, process.cwd()), source: "flag", warnings: [] };
  }
  const fromEnv = env[SESSION_DIR_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    return { dir: expandPath(fromEnv, process.cwd()), source: "env", warnings: [] };
  }
  const paths = agentPaths(options.agentDir);
  const global = await readSettingsFile(paths.settings);
  const setting = global.settings?.sessionDir;
  if (typeof setting === "string" && setting.trim() !== "") {
    // A relative setting is relative to the file that holds it.
    return { dir: expandPath(setting, paths.dir), source: "settings", warnings: global.warnings };
  }
  return { dir: paths.sessions, source: "default", warnings: global.warnings };
}
