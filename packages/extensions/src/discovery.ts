/**
 * What a thread's extension host starts from: the installed packages' contributions and
 * the discovery steps (entry modules to load, warnings), found on disk without loading
 * the extension runtime. `lazy-host-factory.ts` decides from this whether that runtime
 * is needed at all.
 */
import type { ExtensionHostOptions } from "./host-contract.ts";
import { type PackageContributions, packageLocations } from "./packages/package-loader.ts";
import { piLocations } from "./pi/pi-sources.ts";
import { type DiscoveryStep, discoverExtensions } from "./sources.ts";

/** A thread's discovered extensions. */
export interface DiscoveredExtensions {
  packages: PackageContributions;
  steps: DiscoveryStep[];
}

/** Finds a thread's packages and extension entry modules. */
export async function discoverThreadExtensions(options: ExtensionHostOptions): Promise<DiscoveredExtensions> {
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
