/**
 * Where sessions are stored. Resolved before (and without) project trust: the
 * `--session-dir` flag, then `KNIGHTCODE_CODING_AGENT_SESSION_DIR`, then the `sessionDir`
 * setting; otherwise the per-project layout under the agent dir. With a `cwd`, the
 * project's `.knightcode/settings.json` `sessionDir` beats the global one: configuration.md
 * makes it the one project setting read before trust. Nothing else is taken from an
 * untrusted project file, and an untrusted project may only keep its sessions inside
 * itself: aimed elsewhere (say at a folder whose files a login shell sources) it is ignored.
 */
import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { isErrnoCode } from "./errors.ts";
import { agentPaths, expandPath, projectPaths, SESSION_DIR_ENV } from "./paths.ts";
import { readSettingsFile } from "./settings-file.ts";
import { readTrustDecisionAt, trustKey } from "./trust-store.ts";
import type { ConfigWarning } from "./warning.ts";

/** Inputs of session directory resolution. */
export interface ResolveSessionDirOptions {
  agentDir: string;
  /** The `--session-dir` flag, resolved against the process cwd. */
  flag?: string;
  env?: Record<string, string | undefined>;
  /**
   * The working directory of a single-project client (the terminal). Omit it for a
   * process hosting many projects (the app server), which uses only the global setting.
   */
  cwd?: string;
  /**
   * The global settings the caller already read from `<agent-dir>/settings.json`, so the
   * file is not read twice in one operation; the caller reports that read's warnings.
   */
  globalSettings?: Record<string, unknown> | null;
}

/** A flat override directory, or the default per-project layout root. */
export interface SessionDirResolution {
  dir: string;
  /** "default" means the per-project layout below `dir`; "project" is the project file's setting. */
  source: "flag" | "env" | "project" | "settings" | "default";
  warnings: ConfigWarning[];
}

/** Resolves the session directory; a malformed settings file only adds a warning. */
export async function resolveSessionDir(options: ResolveSessionDirOptions): Promise<SessionDirResolution> {
  const env = options.env ?? process.env;
  if (options.flag !== undefined && options.flag.trim() !== "") {
    return { dir: expandPath(options.flag, process.cwd()), source: "flag", warnings: [] };
  }
  const fromEnv = env[SESSION_DIR_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    return { dir: expandPath(fromEnv, process.cwd()), source: "env", warnings: [] };
  }
  const warnings: ConfigWarning[] = [];
  if (options.cwd !== undefined) {
    const projectDir = await trustKey(options.cwd);
    const project = projectPaths(projectDir);
    const settings = await readProjectSettingsForSessionDir(project.settings, warnings);
    const dir = sessionDirSetting(settings, project.dir);
    if (dir !== null) {
      if (await mayUseProjectSessionDir(options.agentDir, projectDir, dir)) {
        return { dir, source: "project", warnings };
      }
      warnings.push({
        source: "trust",
        path: project.settings,
        message: `Ignoring sessionDir ${dir}: project ${projectDir} is not trusted and it points outside the project`,
      });
    }
  }
  const paths = agentPaths(options.agentDir);
  let globalSettings = options.globalSettings;
  if (globalSettings === undefined) {
    const global = await readSettingsFile(paths.settings);
    warnings.push(...global.warnings);
    globalSettings = global.settings;
  }
  const dir = sessionDirSetting(globalSettings, paths.dir);
  if (dir !== null) return { dir, source: "settings", warnings };
  return { dir: paths.sessions, source: "default", warnings };
}

// A relative setting is relative to the folder of the file that holds it.
function sessionDirSetting(settings: Record<string, unknown> | null, base: string): string | null {
  const setting = settings?.sessionDir;
  return typeof setting === "string" && setting.trim() !== "" ? expandPath(setting, base) : null;
}

// A project file that cannot be read or parsed must not stop sessions from being found:
// it becomes a warning and the global setting applies.
async function readProjectSettingsForSessionDir(
  path: string,
  warnings: ConfigWarning[],
): Promise<Record<string, unknown> | null> {
  try {
    const read = await readSettingsFile(path);
    // A parse failure is worth telling; nothing else about a maybe-untrusted file is.
    if (read.settings === null) warnings.push(...read.warnings);
    return read.settings;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    warnings.push({ source: "settings", path, message: detail });
    return null;
  }
}

// Inside the project (physically, symlinks followed) is always fine; elsewhere needs trust.
async function mayUseProjectSessionDir(agentDir: string, projectDir: string, dir: string): Promise<boolean> {
  const physical = await physicalPath(dir);
  if (physical !== null && isInsideOrSame(physical, projectDir)) return true;
  return (await readTrustDecisionAt(agentDir, projectDir).catch(() => null)) === true;
}

/**
 * Where `path` (absolute, normalized) really is: the real path of its deepest existing
 * ancestor plus the missing rest. Null when that cannot be told (a dangling symlink on
 * the way, a permission error): the caller then treats it as outside.
 */
async function physicalPath(path: string): Promise<string | null> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch (error) {
      if (!isErrnoCode(error, "ENOENT")) return null;
      const isLink = await lstat(current).then(
        (info) => info.isSymbolicLink(),
        () => false,
      );
      if (isLink) return null;
      const parent = dirname(current);
      if (parent === current) return null;
      missing.push(basename(current));
      current = parent;
    }
  }
}

function isInsideOrSame(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
