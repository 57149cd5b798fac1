/**
 * Packages at thread load: the user's recorded packages and, for a trusted project, the
 * project's, each contributing the extension entries, skills and prompt templates of its
 * manifest (a local folder's skills and prompts come from config's resource discovery).
 * A project package that is not installed yet is installed on this first trusted load (npm scripts off);
 * a missing user package is a warning naming the command that installs it. One install
 * per folder runs at a time, however many threads load at once.
 */
import { existsSync } from "node:fs";
import type { Warning } from "@knightcode/app-server-protocol";
import { agentPaths, projectPaths } from "@knightcode/config";
import type { ExtraLocation } from "../sources.ts";
import { entrySource, settingsPackages } from "./package-manager.ts";
import { packageExtensionEntries, packageResourcePaths } from "./package-manifest.ts";
import { parsePackageSource } from "./package-source.ts";
import { installedDir, installInto, scopeDir } from "./package-store.ts";

/** What package loading reads. */
export interface PackageLoadOptions {
  agentDir: string | undefined;
  /** The project's real path (as trust was decided for it). */
  projectDir: string | undefined;
  trusted: boolean;
}

/** What a thread's packages contribute: extension entries, skills and prompt templates. */
export interface PackageContributions {
  locations: ExtraLocation[];
  warnings: Warning[];
  skillPaths: string[];
  promptPaths: string[];
}

const installing = new Map<string, Promise<string>>();

function installOnce(key: string, install: () => Promise<string>): Promise<string> {
  let pending = installing.get(key);
  if (!pending) {
    pending = install().finally(() => installing.delete(key));
    installing.set(key, pending);
  }
  return pending;
}

/** The package extension entries of a thread, with what went wrong on the way. */
export async function packageLocations(options: PackageLoadOptions): Promise<PackageContributions> {
  const locations: ExtraLocation[] = [];
  const warnings: Warning[] = [];
  const skillPaths: string[] = [];
  const promptPaths: string[] = [];
  if (options.agentDir === undefined) return { locations, warnings, skillPaths, promptPaths };
  const scopes: { scope: "user" | "project"; settings: string; base: string }[] = [
    { scope: "user", settings: agentPaths(options.agentDir).settings, base: options.agentDir },
  ];
  if (options.trusted && options.projectDir !== undefined) {
    scopes.push({
      scope: "project",
      settings: projectPaths(options.projectDir).settings,
      base: options.projectDir,
    });
  }
  for (const { scope, settings, base } of scopes) {
    const root = scopeDir(scope, {
      agentDir: options.agentDir,
      ...(options.projectDir ? { projectDir: options.projectDir } : {}),
    });
    for (const entry of settingsPackages(settings)) {
      const raw = entrySource(entry);
      if (raw === undefined) continue;
      try {
        const source = parsePackageSource(raw, base);
        let dir = await installedDir(source, root);
        if (!existsSync(dir)) {
          if (scope === "user" || source.type === "local") {
            warnings.push({
              source: "extension",
              path: dir,
              message: `Package ${raw} is not installed: run knightcode install ${raw}`,
            });
            continue;
          }
          dir = await installOnce(dir, () => installInto(source, root));
        }
        for (const path of packageExtensionEntries(dir))
          locations.push({ path, kind: "explicit", origin: "package" });
        // a local folder's skills and prompts come from config's resource discovery already
        if (source.type !== "local") {
          skillPaths.push(...packageResourcePaths(dir, "skills"));
          promptPaths.push(...packageResourcePaths(dir, "prompts"));
        }
      } catch (error) {
        warnings.push({
          source: "extension",
          message: `Package ${raw} could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
    }
  }
  return { locations, warnings, skillPaths, promptPaths };
}
