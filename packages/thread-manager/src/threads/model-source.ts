/**
 * Where the manager gets models and their keys: by default the model registry of
 * `@knightcode/ai`; hosts and tests may inject their own source.
 */
import { DEMO_MODEL, type Model, ModelRegistry, type ProviderConfig, preloadProvider } from "@knightcode/ai";
import type { ModelRef, ProtocolModel, Warning } from "@knightcode/app-server-protocol";

/** The model registry as the manager uses it. */
export interface ModelSource {
  /** Every model, re-reading `models.json` where the registry does so. */
  list(): Promise<Model[]>;
  find(ref: ModelRef): Promise<Model | undefined>;
  /**
   * The model a new thread starts with (settings default, else the first usable one).
   * `globalSettings`: the global settings as the thread's start just read them, so the
   * source need not read the file again; absent, it reads them itself.
   */
  defaultModel(globalSettings?: Record<string, unknown>): Promise<Model | undefined>;
  getApiKey(model: Model): Promise<string | undefined>;
  /** Whether credentials for the model's provider exist. */
  available(model: Model): Promise<boolean>;
  /**
   * Adds (or replaces) a provider registered by an extension; its models are listed from
   * then on. Absent: the source cannot take extension providers.
   */
  registerProvider?(config: ProviderConfig): void;
  /** Withdraws a provider an extension registered (built-in models it overrode come back). */
  unregisterProvider?(name: string): void;
  /** Problems with the model configuration (a malformed models.json or auth.json), for a new or resumed thread's warnings. */
  warnings?(): Promise<Warning[]>;
}

/** A source over a fixed list, with literal keys per provider. */
export function staticModelSource(models: readonly Model[], keys: Record<string, string> = {}): ModelSource {
  return {
    list: async () => [...models],
    find: async (ref) => models.find((m) => m.provider === ref.provider && m.id === ref.id),
    defaultModel: async () => models[0],
    getApiKey: async (model) => keys[model.provider],
    available: async (model) => model.api === "demo" || keys[model.provider] !== undefined,
  };
}

/** The offline demo model only (no keys, no network). */
export const demoModelSource: ModelSource = staticModelSource([DEMO_MODEL]);

/**
 * The source used when a host injects none: built-in catalogs merged with
 * `<agent-dir>/models.json`, keys from auth.json and the environment; the offline demo
 * model is the default only when no credentials exist.
 */
export function registryModelSource(agentDir: string, env: Record<string, string | undefined>): ModelSource {
  const registry = new ModelRegistry({ agentDir, env });
  return {
    list: () => registry.list(),
    find: (ref) => registry.find(ref.provider, ref.id),
    defaultModel: () => registry.defaultModel(),
    getApiKey: (model) => registry.getApiKey(model),
    available: (model) => registry.isAvailable(model),
    registerProvider: (config) => registry.registerProvider(config),
    unregisterProvider: (name) => registry.unregisterProvider(name),
  };
}

/**
 * Wraps a source so that a model a thread picks has its provider SDK loaded in the
 * background right away: SDKs load lazily, and the first turn should not pay for it.
 */
export function warmingModelSource(source: ModelSource): ModelSource {
  const warm = (model: Model | undefined): Model | undefined => {
    if (model !== undefined) void preloadProvider(model.api);
    return model;
  };
  return {
    ...source,
    find: async (ref) => warm(await source.find(ref)),
    defaultModel: async (globalSettings) => warm(await source.defaultModel(globalSettings)),
  };
}

/** A model as `model/list` reports it. */
export function toProtocolModel(model: Model, available: boolean): ProtocolModel {
  return {
    provider: model.provider,
    id: model.id,
    name: model.name,
    api: model.api,
    reasoning: model.reasoning,
    input: [...model.input],
    contextWindow: model.contextWindow,
    maxTokens: model.maxTokens,
    thinkingLevels: model.thinkingLevels.length > 0 ? [...model.thinkingLevels] : ["off"],
    available,
  };
}
