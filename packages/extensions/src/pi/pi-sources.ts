/**
 * pi's extension locations, read only when the user opts in with `compat.pi: true`:
 * `~/.pi/agent/extensions/`, the `extensions` and local `packages` entries of
 * `~/.pi/agent/settings.json` (relative to that folder), and `.pi/extensions/` of a
 * project — the latter under the same trust rule as `.knightcode/`: only a trusted
 * project's folder loads. They load after KnightCode's own locations.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { ExtraLocation } from "../sources.ts";

/** What pi-location discovery reads. */
export interface PiLocationOptions {
  /** Merged settings: `compat.pi` switches the pi locations on. */
  settings: Record<string, unknown> | undefined;
  trusted: boolean;
  projectDir: string | undefined;
  /** pi's agent dir; `PI_CODING_AGENT_DIR` or `~/.pi/agent` by default. */
  piAgentDir?: string;
}

/** Whether the settings opt into pi's locations. */
export function piCompatEnabled(settings: Record<string, unknown> | undefined): boolean {
  const compat = settings?.compat;
  return typeof compat === "object" && compat !== null && (compat as { pi?: unknown }).pi === true;
}

/** pi's agent dir as pi itself finds it. */
export function defaultPiAgentDir(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env.PI_CODING_AGENT_DIR?.trim();
  return fromEnv ? resolve(fromEnv) : join(homedir(), ".pi", "agent");
}

function expand(path: string, base: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(base, path);
}

/** A local package source of pi's settings (`./path`, `/path`, `~/path`); npm and git ones are pi's installs. */
function isLocalSource(source: string): boolean {
  return /^(\.{1,2}[\\/]|[\\/]|~)/.test(source);
}

function readPiSettings(dir: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(readFileSync(join(dir, "settings.json"), "utf8")) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    // pi's settings are optional; a broken file is pi's to report
    return {};
  }
}

/** The pi locations to load, in order; empty unless `compat.pi` is true. */
export function piLocations(options: PiLocationOptions): ExtraLocation[] {
  if (!piCompatEnabled(options.settings)) return [];
  const piDir = options.piAgentDir ?? defaultPiAgentDir();
  const settings = readPiSettings(piDir);
  const locations: ExtraLocation[] = [];
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v !== "") : [];
  for (const entry of strings(settings.extensions)) {
    locations.push({ path: expand(entry, piDir), kind: "explicit", origin: "pi" });
  }
  const packages = Array.isArray(settings.packages) ? settings.packages : [];
  for (const entry of packages) {
    const source = typeof entry === "string" ? entry : (entry as { source?: unknown } | null)?.source;
    if (typeof source === "string" && isLocalSource(source)) {
      locations.push({ path: expand(source, piDir), kind: "explicit", origin: "pi" });
    }
  }
  locations.push({ path: join(piDir, "extensions"), kind: "folder", origin: "pi" });
  if (options.trusted && options.projectDir !== undefined) {
    locations.push({ path: join(options.projectDir, ".pi", "extensions"), kind: "folder", origin: "pi" });
  }
  return locations;
}
