/**
 * What a thread's extension host starts from: the installed packages' contributions and
 * the discovery steps (entry modules to load, warnings), found on disk without loading
 * the extension runtime. `lazy-host-factory.ts` decides from this whether that runtime
 * is needed at all.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionDiscoveryOptions } from "./host-contract.ts";
import { type PackageContributions, packageLocations } from "./packages/package-loader.ts";
import { piCompatEnabled, piLocations } from "./pi/pi-sources.ts";
import { type DiscoveryStep, discoverExtensions } from "./sources.ts";

/** A thread's discovered extensions. */
export interface DiscoveredExtensions {
  packages: PackageContributions;
  steps: DiscoveryStep[];
}

/**
 * True when discovery cannot find anything: no `-e` path, no `extensions` or `packages`
 * setting, pi compatibility off, and neither extensions folder present. Most threads are
 * like that, and answering at once keeps the walk's code (package scopes, pi's places,
 * the folder scans) off a fresh process's first thread. Only with the merged settings in
 * hand: without them the walk reads the settings files itself.
 */
function nothingToDiscover(options: ExtensionDiscoveryOptions): boolean {
  const settings = options.settings;
  if (settings === undefined || options.extensionPaths.length > 0) return false;
  if (settings.extensions !== undefined || settings.packages !== undefined || piCompatEnabled(settings)) {
    return false;
  }
  if (options.agentDir !== undefined && existsSync(join(options.agentDir, "extensions"))) return false;
  const projectDir = options.projectDir || options.context.cwd;
  return !(options.trusted === true && existsSync(join(projectDir, ".knightcode", "extensions")));
}

/** Finds a thread's packages and extension entry modules. */
export async function discoverThreadExtensions(
  options: ExtensionDiscoveryOptions,
): Promise<DiscoveredExtensions> {
  if (nothingToDiscover(options)) {
    return { packages: { locations: [], warnings: [], skillPaths: [], promptPaths: [] }, steps: [] };
  }
  const packages = await packageLocations({
    agentDir: options.agentDir,
    projectDir: options.projectDir || undefined,
    trusted: options.trusted === true,
  });
  const steps = discoverExtensions({
    cliPaths: options.extensionPaths,
    settingsPaths: options.settings?.extensions,
    ...(options.agentDir !== undefined ? { agentDir: options.agentDir } : {}),
    projectDir: options.projectDir || options.context.cwd,
    trusted: options.trusted === true,
    extraLocations: [
      ...piLocations({
        settings: options.settings,
        trusted: options.trusted === true,
        projectDir: options.projectDir || options.context.cwd,
      }),
      ...packages.locations,
    ],
  });
  return { packages, steps };
}

/** True when discovery found an entry module to load. */
export function hasExtensionSources(discovered: DiscoveredExtensions): boolean {
  return discovered.steps.some((step) => "source" in step);
}
