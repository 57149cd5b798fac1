/**
 * The production assembly behind a server: a ThreadManager over the model registry
 * (built-in models, `models.json`, credentials) and the built-in tools, plus the
 * settings/trust service, all for one agent dir. `knightcode app-server`, the
 * benchmarks and the end-to-end tests build the same host, so the in-process and the
 * child-process servers differ only in transport.
 */
// first, so that under Node the import fails with a clear sentence before anything else loads
import "./require-bun.ts";
import type { AnyAgentTool, ToolOperations } from "@knightcode/agent";
import {
  BUILT_IN_PROVIDER_ENV,
  defaultModel,
  type Model,
  ModelRegistry,
  type ProviderConfig,
  readModelsConfig,
} from "@knightcode/ai";
import type { ExtensionFlagArg } from "@knightcode/app-server-protocol";
import { readConfig, resolveAgentDir } from "@knightcode/config";
import { createLazyExtensionHostFactory } from "@knightcode/extensions/host";
import {
  createThreadManager,
  DEFAULT_REPLAY_LIMITS,
  type ThreadManagerApi,
  type ThreadManagerOptions,
} from "@knightcode/thread-manager";
import { createAccountPort } from "./account-port.ts";
import { createConfigPort } from "./config-port.ts";
import type { AccountPort, ConfigPort } from "./ports.ts";

/** Options for {@link createServerHost}. */
export interface ServerHostOptions {
  /** Defaults to `KNIGHTCODE_CODING_AGENT_DIR`, else `~/.knightcode/agent`. */
  agentDir?: string;
  /** `--session-dir`. */
  sessionDir?: string;
  /** `-e` paths, already absolute. */
  extensionPaths?: string[];
  /** Command-line flags no built-in option took, for the extensions (`--plan`). */
  extensionFlags?: ExtensionFlagArg[];
  env?: Record<string, string | undefined>;
  /** `--sandbox`: every thread's tools run in its own bubblewrap sandbox. */
  sandbox?: boolean;
  /** The server runs inside a process-wide sandbox (`knightcode --sandbox=process`). */
  processSandbox?: boolean;
  /** How much of each loaded thread's stream is kept for reconnecting clients; unset parts keep the defaults. */
  replayLimits?: { maxNotifications?: number; maxBytes?: number };
  /**
   * How a sandboxed thread starts its helper (`knightcode __sandbox-helper`); the CLI gives
   * its own (apps/cli self-command.ts). Without it, sandboxed threads fail closed.
   */
  sandboxHelper?: ThreadManagerOptions["sandboxHelper"];
}

/** What a server needs from its host. */
export interface ServerHost {
  agentDir: string;
  threads: ThreadManagerApi;
  config: ConfigPort;
  accounts: AccountPort;
  version: string;
  /** Releases what the host holds after the server shut down. */
  dispose(): Promise<void>;
}

/**
 * The built-in tools for one working directory, acting through the thread's operations.
 * Their modules (and the agent package behind them) load with the first turn, not with
 * the host: no thread/start needs them.
 */
export async function builtInTools(cwd: string, ops?: ToolOperations): Promise<AnyAgentTool[]> {
  const { builtInToolsNow } = await import("./built-in-tools.ts");
  return builtInToolsNow(cwd, ops);
}

/** Builds the ThreadManager and services for one agent dir. */
export async function createServerHost(options: ServerHostOptions = {}): Promise<ServerHost> {
  const env = options.env ?? process.env;
  const agentDir = options.agentDir ?? resolveAgentDir(env);
  // The registry and credentials keep their parses while one stat shows the files unchanged.
  const registry = new ModelRegistry({ agentDir, env });
  const preferredIn = (settings: Record<string, unknown>): { provider?: string; modelId?: string } => {
    const provider = typeof settings.defaultProvider === "string" ? settings.defaultProvider : undefined;
    const modelId = typeof settings.defaultModel === "string" ? settings.defaultModel : undefined;
    return {
      ...(provider === undefined ? {} : { provider }),
      ...(modelId === undefined ? {} : { modelId }),
    };
  };
  const preferred = async (): Promise<{ provider?: string; modelId?: string }> => {
    try {
      return preferredIn((await readConfig({ agentDir })).settings);
    } catch {
      // unreadable settings already surface as thread warnings; the default model still works
      return {};
    }
  };
  const models = {
    list: () => registry.list(),
    find: (ref: { provider: string; id: string }) => registry.find(ref.provider, ref.id),
    defaultModel: async (globalSettings?: Record<string, unknown>): Promise<Model | undefined> => {
      const wanted = globalSettings === undefined ? await preferred() : preferredIn(globalSettings);
      const model = await defaultModel(registry, registry.credentials, wanted);
      // The default may be in a models.json that does not parse now: no model rather than
      // another one, so the thread takes the right one once the file is fixed.
      if (
        wanted.provider !== undefined &&
        model.provider !== wanted.provider &&
        (await registry.configProblem())
      )
        return undefined;
      return model;
    },
    // a malformed models.json or auth.json: the models that do not need it stay usable
    warnings: async () => {
      const [models, auth] = await Promise.all([registry.configProblem(), registry.credentials.problem()]);
      return [
        ...(models === undefined
          ? []
          : [{ source: "settings" as const, message: models.message, path: registry.modelsJsonPath }]),
        ...(auth === undefined
          ? []
          : [{ source: "settings" as const, message: auth.message, path: registry.credentials.authPath }]),
      ];
    },
    getApiKey: (model: Model) => registry.getApiKey(model),
    // one provider check per model, not the whole available list per model
    available: (model: Model) => registry.isAvailable(model),
    // extension providers join the listing once a thread has loaded them
    registerProvider: (config: ProviderConfig) => registry.registerProvider(config),
    unregisterProvider: (name: string) => registry.unregisterProvider(name),
  };
  const threads = createThreadManager({
    agentDir,
    env,
    models,
    tools: builtInTools,
    toolEnv: env,
    ...(options.sandbox === true ? { sandbox: true } : {}),
    ...(options.processSandbox === true ? { processSandbox: true } : {}),
    ...(options.replayLimits === undefined
      ? {}
      : { replayLimits: { ...DEFAULT_REPLAY_LIMITS, ...options.replayLimits } }),
    ...(options.sandboxHelper === undefined ? {} : { sandboxHelper: options.sandboxHelper }),
    // the extension runtime loads with the first thread that has an extension to run
    extensionHostFactory: createLazyExtensionHostFactory(),
    ...(options.sessionDir === undefined ? {} : { sessionDir: options.sessionDir }),
    ...(options.extensionPaths === undefined ? {} : { extensionPaths: options.extensionPaths }),
    ...(options.extensionFlags === undefined ? {} : { extensionFlags: options.extensionFlags }),
  });
  return {
    agentDir,
    threads,
    config: createConfigPort(agentDir),
    accounts: createAccountPort({
      agentDir,
      env,
      providerEnv: BUILT_IN_PROVIDER_ENV,
      readAuth: () => registry.credentials.readAuth(),
      configuredProviders: async () =>
        (await readModelsConfig(registry.modelsJsonPath)).map((c) => ({
          provider: c.name,
          hasApiKey: c.apiKey !== undefined,
        })),
    }),
    version: "0.1.0",
    dispose: async () => {},
  };
}
