/**
 * Where a thread's extensions come from, in load order (which is precedence order: the
 * first to register a tool name keeps it): `-e` paths, the `extensions` setting,
 * `<agent-dir>/extensions/`, and `.knightcode/extensions/` of a trusted project only.
 * A directory is read one level deep: `*.ts`/`*.js` files, `<dir>/index.ts|js`, or a
 * `<dir>/package.json` whose `knightcode.extensions` (or pi's `pi.extensions`) lists entry
 * files. Dot-entries and `node_modules` are skipped. Further locations (pi's folders,
 * installed packages) come last.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { Warning } from "@knightcode/app-server-protocol";

/** One entry module to load, with where it came from. */
export interface ExtensionSource {
  /** Absolute path of the entry module. */
  path: string;
  origin: "cli" | "settings" | "agent" | "project" | "pi" | "package";
}

/**
 * A further place to load extensions from, after the project's (pi's locations with
 * `compat.pi`, installed packages): a named path (an explicit entry; missing is a
 * warning) or an extensions folder to scan.
 */
export interface ExtraLocation {
  path: string;
  kind: "explicit" | "folder";
  origin: ExtensionSource["origin"];
}

/** Inputs of discovery. */
export interface DiscoveryOptions {
  /** `-e` paths, already absolute; trusted explicitly. */
  cliPaths: readonly string[];
  /** The merged `extensions` setting (paths; relative ones resolve against the agent dir). */
  settingsPaths?: unknown;
  agentDir?: string;
  /** The project directory; its `.knightcode/extensions/` loads only when `trusted`. */
  projectDir?: string;
  trusted?: boolean;
  /** Loaded after everything above, in order. */
  extraLocations?: readonly ExtraLocation[];
}

const MODULE_FILE = /\.(ts|js|mts|mjs)$/;
const INDEX_FILES = ["index.ts", "index.js", "index.mts", "index.mjs"];

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

/** The entry modules of one extension directory (`index.*` or `package.json`'s list). */
function directoryEntries(dir: string, warnings: Warning[]): string[] | undefined {
  const manifest = join(dir, "package.json");
  if (isFile(manifest)) {
    try {
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as {
        knightcode?: { extensions?: unknown };
        pi?: { extensions?: unknown };
      };
      // pi packages name their entries under `pi`
      const listed = pkg.knightcode?.extensions ?? pkg.pi?.extensions;
      if (Array.isArray(listed)) {
        return listed.filter((p): p is string => typeof p === "string").map((p) => resolve(dir, p));
      }
    } catch (error) {
      warnings.push({
        source: "extension",
        path: manifest,
        message: `Extension package.json is unreadable: ${(error as Error).message}`,
      });
      return [];
    }
  }
  for (const name of INDEX_FILES) {
    if (isFile(join(dir, name))) return [join(dir, name)];
  }
  return undefined;
}

/** The entry modules directly inside an extensions folder, sorted by name. */
function scanFolder(dir: string, warnings: Warning[]): string[] {
  if (!isDirectory(dir)) return [];
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const path = join(dir, name);
    if (isDirectory(path)) found.push(...(directoryEntries(path, warnings) ?? []));
    else if (MODULE_FILE.test(name) && !name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

/** An explicitly named path: a module file, or an extension directory. */
function explicitEntries(path: string, warnings: Warning[]): string[] {
  if (!existsSync(path)) {
    warnings.push({ source: "extension", path, message: `Extension not found: ${path}` });
    return [];
  }
  if (!isDirectory(path)) return [path];
  const entries = directoryEntries(path, warnings);
  if (entries) return entries;
  warnings.push({
    source: "extension",
    path,
    message: `Extension directory has no index.ts, index.js or package.json "knightcode.extensions": ${path}`,
  });
  return [];
}

function expandHome(path: string): string {
  if (path === "~") return homedir();
  return path.startsWith("~/") ? join(homedir(), path.slice(2)) : path;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** One step of a thread's extension loading: a module to load, or a problem found on the way. */
export type DiscoveryStep = { source: ExtensionSource } | { warning: Warning };

/**
 * Every extension entry of a thread in load order, without duplicates (by real path),
 * with discovery problems in the same order (a missing `-e` path where it was named).
 */
export function discoverExtensions(options: DiscoveryOptions): DiscoveryStep[] {
  const steps: DiscoveryStep[] = [];
  const warnings: Warning[] = [];
  const flush = () => {
    for (const warning of warnings.splice(0)) steps.push({ warning });
  };
  const seen = new Set<string>();
  const add = (paths: string[], origin: ExtensionSource["origin"]) => {
    flush();
    for (const path of paths) {
      const key = realOrSelf(path);
      if (seen.has(key)) continue;
      seen.add(key);
      steps.push({ source: { path, origin } });
    }
  };
  for (const path of options.cliPaths) add(explicitEntries(path, warnings), "cli");
  if (options.settingsPaths !== undefined) {
    if (!Array.isArray(options.settingsPaths)) {
      warnings.push({ source: "settings", message: "The extensions setting must be a list of paths" });
    } else {
      for (const raw of options.settingsPaths) {
        if (typeof raw !== "string" || raw === "") continue;
        const expanded = expandHome(raw);
        const path = isAbsolute(expanded) ? expanded : resolve(options.agentDir ?? process.cwd(), expanded);
        add(explicitEntries(path, warnings), "settings");
      }
    }
  }
  if (options.agentDir !== undefined)
    add(scanFolder(join(options.agentDir, "extensions"), warnings), "agent");
  if (options.trusted === true && options.projectDir !== undefined) {
    add(scanFolder(join(options.projectDir, ".knightcode", "extensions"), warnings), "project");
  }
  for (const extra of options.extraLocations ?? []) {
    add(
      extra.kind === "folder" ? scanFolder(extra.path, warnings) : explicitEntries(extra.path, warnings),
      extra.origin,
    );
  }
  flush();
  return steps;
}
