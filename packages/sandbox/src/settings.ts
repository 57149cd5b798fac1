/**
 * The `sandbox` settings block. Everything that loosens the boundary (network, extra
 * paths, git writes) is read from the global settings only; a trusted project may turn
 * the sandbox on, never widen it, so a cloned repository cannot open its own way out.
 */
import { isAbsolute, resolve } from "node:path";

/** Whether the sandboxed tools may reach the network. */
export type SandboxNetwork = "off" | "on";

/** The sandbox a thread asks for. */
export interface SandboxSettings {
  enabled: boolean;
  network: SandboxNetwork;
  /** Absolute paths mounted read-write besides the thread's cwd. */
  extraWritable: string[];
  /** Absolute paths made visible read-only (for example something under the hidden home). */
  extraReadable: string[];
  /** Whether `.git` of the project stays writable (commits from inside the sandbox). */
  allowGitWrites: boolean;
  /** Where the thread's cwd is mounted inside (`/workspace`); at its own path when absent. */
  workspace?: string;
}

/** A problem in the block, reported as a `settings` warning. */
export interface SandboxSettingsWarning {
  source: "settings";
  message: string;
}

type Settings = Record<string, unknown> | null;

function block(settings: Settings): Record<string, unknown> | undefined {
  const value = settings?.sandbox;
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function paths(value: unknown, key: string, home: string, warnings: SandboxSettingsWarning[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((p) => typeof p !== "string")) {
    warnings.push({ source: "settings", message: `sandbox.${key} must be an array of paths; ignored` });
    return [];
  }
  const out: string[] = [];
  for (const raw of value as string[]) {
    const expanded = raw === "~" ? home : raw.startsWith("~/") ? resolve(home, raw.slice(2)) : raw;
    if (!isAbsolute(expanded)) {
      warnings.push({
        source: "settings",
        message: `sandbox.${key}: ${raw} is not an absolute path; ignored`,
      });
      continue;
    }
    out.push(resolve(expanded));
  }
  return out;
}

/** The sandbox settings from global and (trusted) project settings, with the server's `--sandbox`. */
export function readSandboxSettings(options: {
  global: Settings;
  project: Settings;
  /** `--sandbox`: on whatever the settings say. */
  forced: boolean;
  home: string;
}): { settings: SandboxSettings; warnings: SandboxSettingsWarning[] } {
  const warnings: SandboxSettingsWarning[] = [];
  const global = block(options.global);
  if (options.global?.sandbox !== undefined && global === undefined)
    warnings.push({ source: "settings", message: "sandbox must be an object; ignored" });
  const project = block(options.project);
  const network = global?.network ?? "off";
  if (network !== "off" && network !== "on")
    warnings.push({ source: "settings", message: `sandbox.network must be "off" or "on"; using "off"` });
  for (const key of ["enabled", "allowGitWrites"] as const) {
    if (global?.[key] !== undefined && typeof global[key] !== "boolean")
      warnings.push({ source: "settings", message: `sandbox.${key} must be true or false; ignored` });
  }
  const workspace = global?.workspace;
  const validWorkspace = typeof workspace === "string" && isAbsolute(workspace) && resolve(workspace) !== "/";
  if (workspace !== undefined && !validWorkspace)
    warnings.push({
      source: "settings",
      message: "sandbox.workspace must be an absolute path other than /; ignored",
    });
  return {
    settings: {
      enabled: options.forced || global?.enabled === true || project?.enabled === true,
      network: network === "on" ? "on" : "off",
      extraWritable: paths(global?.extraWritable, "extraWritable", options.home, warnings),
      extraReadable: paths(global?.extraReadable, "extraReadable", options.home, warnings),
      allowGitWrites: global?.allowGitWrites === true,
      ...(validWorkspace ? { workspace: resolve(workspace as string) } : {}),
    },
    warnings,
  };
}
