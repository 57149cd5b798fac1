/**
 * The `ExtensionHostFactory` the app server (and the terminal) hand to the thread
 * manager: per thread it discovers the extension sources, leases their factories from the
 * shared cache, runs each factory against a fresh API of its own, fires `session_start`,
 * and returns the hooks, commands and tools the thread manager calls. Nothing is shared
 * between threads but the compiled factories.
 */
// pi's package names resolve to the compatibility modules in every extension this loads
// (also imported by the index; here for the lazy factory, which imports only this file)
import "./pi/pi-modules.ts";
import { BUILTIN_TOOL_NAMES, createLocalOperations } from "@knightcode/agent";
import type { ProviderConfig as RegistryProviderConfig } from "@knightcode/ai";
import type { Warning } from "@knightcode/app-server-protocol";
import type { ExtensionUIContext, InputSource } from "./api-types.ts";
import { hookTimeoutMs } from "./bounded-call.ts";
import { type DiscoveredExtensions, discoverThreadExtensions, hasExtensionSources } from "./discovery.ts";
import { ExtensionRunner, errorText } from "./extension-runner.ts";
import { extensionAgentTools } from "./extension-tools.ts";
import { type CachedFactory, FactoryCache } from "./factory-cache.ts";
import { flagArgWarnings } from "./flag-warnings.ts";
import type {
  ExtensionDiscoveryOptions,
  ExtensionHost,
  ExtensionHostFactory,
  ExtensionHostOptions,
} from "./host-contract.ts";
import { ExtensionLoadError } from "./module-loader.ts";
import { createNoUI } from "./no-ui.ts";
import { registryProvider } from "./provider-configs.ts";
import { runAsExtension } from "./stdout-guard.ts";
import { threadHooks } from "./thread-hooks.ts";

/** Options of {@link createExtensionHostFactory}. */
export interface ExtensionRuntimeOptions {
  /** The shared factory cache; one per process by default. */
  cache?: FactoryCache;
  /**
   * The UI a thread's dialogs go to. Absent, or returning undefined: the no-UI behaviour
   * (dialogs answer at once with undefined/false).
   */
  ui?: (options: ExtensionHostOptions) => ExtensionUIContext | undefined;
}

/** A factory that also reports the cache it loads through. */
export interface ExtensionRuntime extends ExtensionHostFactory {
  /** `server/diagnostics.inactiveFactories`. */
  inactiveFactories(): number;
  findsExtensions(options: ExtensionDiscoveryOptions): Promise<boolean>;
  readonly cache: FactoryCache;
}

/** A host with the runner behind it (for embedders and tests). */
export interface LoadedExtensionHost extends ExtensionHost {
  readonly runner: ExtensionRunner;
  providers(): RegistryProviderConfig[];
}

/** The factory cache every runtime without its own shares (one per process). */
export const sharedCache = new FactoryCache();

function inputSourceOf(mode: ExtensionHostOptions["context"]["mode"]): InputSource {
  return mode === "terminal" ? "interactive" : "rpc";
}

/** Builds the extension runtime behind the thread manager's seam. */
export function createExtensionHostFactory(runtimeOptions: ExtensionRuntimeOptions = {}): ExtensionRuntime {
  const cache = runtimeOptions.cache ?? sharedCache;
  const load = (options: ExtensionHostOptions) => loadExtensionHost(options, cache, runtimeOptions);
  return Object.assign(load, {
    inactiveFactories: () => cache.inactiveCount(),
    findsExtensions: async (options: ExtensionDiscoveryOptions) =>
      hasExtensionSources(await discoverThreadExtensions(options)),
    cache,
  });
}

/** Loads one thread's extensions. */
export async function loadExtensionHost(
  options: ExtensionHostOptions,
  cache: FactoryCache,
  runtimeOptions: ExtensionRuntimeOptions = {},
  /** What discovery found, when the caller already looked. */
  found?: DiscoveredExtensions,
): Promise<LoadedExtensionHost> {
  const warnings: Warning[] = [];
  let loading = true;
  const { packages, steps } = found ?? (await discoverThreadExtensions(options));
  warnings.push(...packages.warnings);
  // an embedder's own UI wins over the one the host routes over the protocol
  const embedderUI = runtimeOptions.ui?.(options);
  const pluggedUI = embedderUI ?? options.ui;
  const ui = pluggedUI ?? createNoUI();
  const leases: CachedFactory[] = [];
  const loadedPaths: string[] = [];
  const runner = new ExtensionRunner({
    threadId: options.context.threadId,
    cwd: options.context.cwd,
    mode: options.context.mode,
    // a plugged-in UI answers dialogs (while it says it can); without one `hasUI` stays what the host says
    get hasUI() {
      return (
        options.context.hasUI ||
        embedderUI !== undefined ||
        (options.ui !== undefined && (options.uiAvailable?.() ?? true))
      );
    },
    ui,
    port: options.thread,
    hookTimeoutMs: hookTimeoutMs(options.settings),
    warn: (warning) => {
      if (loading) warnings.push(warning);
      else options.thread?.warn(warning);
    },
    builtinToolNames: BUILTIN_TOOL_NAMES,
    toolOperations: options.toolOperations ?? createLocalOperations(),
    ...(options.thread?.reloadExtensions ? { reload: () => options.thread!.reloadExtensions!() } : {}),
    ...(options.flagArgs === undefined ? {} : { flagArgs: options.flagArgs }),
  });
  for (const step of steps) {
    if ("warning" in step) {
      warnings.push(step.warning);
      continue;
    }
    const source = step.source;
    let entry: CachedFactory;
    try {
      entry = await cache.acquire(source.path);
    } catch (error) {
      warnings.push({
        source: "extension",
        path: source.path,
        message:
          error instanceof ExtensionLoadError
            ? error.message
            : `Extension failed to load: ${errorText(error)}`,
      });
      continue;
    }
    if (await runner.load(source.path, entry.factory)) {
      leases.push(entry);
      loadedPaths.push(source.path);
    } else cache.release(entry);
  }
  // every extension has registered its flags: what is left names none of them
  warnings.push(...flagArgWarnings(options.flagArgs ?? [], (name) => runner.flags.get(name)?.value.type));
  const hooks = threadHooks(runner, inputSourceOf(options.context.mode));
  const refresh = () => {
    for (const key of Object.keys(hooks)) delete (hooks as Record<string, unknown>)[key];
    Object.assign(hooks, threadHooks(runner, inputSourceOf(options.context.mode)));
  };
  runner.onChange = refresh;
  await runner.emit("session_start", {
    type: "session_start",
    reason: options.reason ?? "startup",
    ...(options.previousSessionFile !== undefined
      ? { previousSessionFile: options.previousSessionFile }
      : {}),
  });
  const discovered = await discoverExtensionResources(runner, options);
  // Checked while loading, so a refused provider is a load warning; after load (a setup
  // command, pi's registerProvider/unregisterProvider) each change is checked once, its
  // refusal goes to subscribers, and the thread is told to register the new list.
  const checked = new Map<object, RegistryProviderConfig | undefined>();
  const checkProviders = (): RegistryProviderConfig[] => {
    const list: RegistryProviderConfig[] = [];
    for (const [name, entry] of runner.providers) {
      if (!checked.has(entry)) {
        const result = registryProvider(name, entry.value);
        if ("config" in result) checked.set(entry, result.config);
        else {
          checked.set(entry, undefined);
          runner.warnFor(entry.path, `${result.error}; the provider is not registered (${entry.path})`);
        }
      }
      const config = checked.get(entry);
      if (config !== undefined) list.push(config);
    }
    return list;
  };
  let providers = checkProviders();
  runner.onProvidersChanged = () => {
    providers = checkProviders();
    options.thread?.providersChanged?.();
  };
  loading = false;
  let disposed = false;
  const host: LoadedExtensionHost = {
    runner,
    hooks,
    get commands() {
      return [...runner.commands].map(([name, entry]) => ({ name, description: entry.value.description }));
    },
    runCommand: async (name, args) => {
      const command = runner.commands.get(name);
      if (!command || runner.stale) return;
      const extension = runner.extensionAt(command.path);
      if (!extension) return;
      try {
        await runAsExtension(extension.caller, () => command.value.handler(args, runner.commandCtx));
      } catch (error) {
        runner.warnFor(command.path, `Command /${name} failed: ${errorText(error)} (${command.path})`);
      }
    },
    commandContext: () => runner.commandCtx,
    tools: () => extensionAgentTools(runner),
    activeTools: () => runner.activeToolNames,
    flags: () => runner.flagList(),
    loaded: () => [...loadedPaths],
    resources: () => ({
      skillPaths: [...discovered.skillPaths, ...packages.skillPaths],
      promptPaths: [...discovered.promptPaths, ...packages.promptPaths],
      themePaths: discovered.themePaths,
    }),
    providers: () => providers,
    warnings,
    dispose: async (reason = "quit", targetSessionFile) => {
      if (disposed) return;
      disposed = true;
      try {
        await runner.shutdown(reason, targetSessionFile);
      } finally {
        for (const lease of leases.splice(0)) cache.release(lease);
      }
    },
  };
  return host;
}

/** Collects the paths every `resources_discover` handler names (strings only). */
async function discoverExtensionResources(runner: ExtensionRunner, options: ExtensionHostOptions) {
  const found = { skillPaths: [] as string[], promptPaths: [] as string[], themePaths: [] as string[] };
  if (!runner.has("resources_discover")) return found;
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v !== "") : [];
  await runner.emit(
    "resources_discover",
    {
      type: "resources_discover",
      cwd: options.context.cwd,
      reason: options.reason === "reload" ? "reload" : "startup",
    },
    (result) => {
      found.skillPaths.push(...strings(result.skillPaths));
      found.promptPaths.push(...strings(result.promptPaths));
      found.themePaths.push(...strings(result.themePaths));
      return undefined;
    },
  );
  return found;
}
