/**
 * The extension host factory a server hands its thread manager, with the extension
 * runtime (runner, module loader, pi's API surface: ~20 modules) loaded only when a
 * thread has an extension to run. Discovery is cheap and always runs; a thread whose
 * discovery finds no entry module gets the host an empty runner would give (no hooks,
 * commands, tools or providers; the packages' skill and prompt paths; discovery's
 * warnings), so a server without extensions never loads the runtime. `/reload` discovers
 * again, so extensions added later still load.
 */
import type { ExtensionFlagArg } from "@knightcode/app-server-protocol";
import { type DiscoveredExtensions, discoverThreadExtensions, hasExtensionSources } from "./discovery.ts";
import { flagArgWarnings } from "./flag-warnings.ts";
import type {
  ExtensionDiscoveryOptions,
  ExtensionHost,
  ExtensionHostFactory,
  ExtensionHostOptions,
} from "./host-contract.ts";
import type { ExtensionRuntimeOptions } from "./host-factory.ts";

/** A factory that loads the extension runtime on the first thread with an extension. */
export function createLazyExtensionHostFactory(
  runtimeOptions: ExtensionRuntimeOptions = {},
): ExtensionHostFactory & {
  inactiveFactories(): number;
  findsExtensions(options: ExtensionDiscoveryOptions): Promise<boolean>;
} {
  let runtime: typeof import("./host-factory.ts") | undefined;
  const load = async (options: ExtensionHostOptions): Promise<ExtensionHost> => {
    const discovered = await discoverThreadExtensions(options);
    if (!hasExtensionSources(discovered)) return emptyExtensionHost(discovered, options.flagArgs);
    runtime ??= await import("./host-factory.ts");
    const cache = runtimeOptions.cache ?? runtime.sharedCache;
    return runtime.loadExtensionHost(options, cache, runtimeOptions, discovered);
  };
  return Object.assign(load, {
    findsExtensions: async (options: ExtensionDiscoveryOptions) =>
      hasExtensionSources(await discoverThreadExtensions(options)),
    inactiveFactories: () =>
      runtime === undefined ? 0 : (runtimeOptions.cache ?? runtime.sharedCache).inactiveCount(),
  });
}

/**
 * What `loadExtensionHost` gives a thread whose discovery found no entry module; with no
 * extension to register one, every command-line flag is a warning.
 */
export function emptyExtensionHost(
  discovered: DiscoveredExtensions,
  flagArgs: readonly ExtensionFlagArg[] = [],
): ExtensionHost {
  const { packages, steps } = discovered;
  return {
    hooks: {},
    commands: [],
    runCommand: async () => {},
    tools: () => [],
    activeTools: () => undefined,
    resources: () => ({
      skillPaths: [...packages.skillPaths],
      promptPaths: [...packages.promptPaths],
      themePaths: [],
    }),
    providers: () => [],
    flags: () => [],
    warnings: [
      ...packages.warnings,
      ...steps.flatMap((step) => ("warning" in step ? [step.warning] : [])),
      ...flagArgWarnings(flagArgs, () => undefined),
    ],
    dispose: async () => {},
  };
}
