import { join } from "node:path";
import { BUILT_IN_MODELS, BUILT_IN_PROVIDER_ENV, PREFERRED_DEFAULTS } from "./catalog.ts";
import { CredentialResolver } from "./credentials.ts";
import { SignatureCache } from "./file-signature.ts";
import {
  applyProviderConfig,
  ModelsConfigError,
  type ProviderConfig,
  readModelsConfig,
} from "./models-config.ts";
import { DEMO_MODEL } from "./providers/demo.ts";
import { guardForeignStream } from "./providers/foreign-stream.ts";
import { registerApiProvider, unregisterApiProvider } from "./stream.ts";
import type { Model } from "./types.ts";

/**
 * Built-in models merged with `<agent-dir>/models.json` and providers registered at runtime
 * (extensions). Every `list()` checks `models.json` so edits apply without a restart; while
 * one `stat` shows the file unchanged (and no provider was registered since), the last
 * merged list is reused rather than re-read and re-merged. A malformed `models.json` does
 * not take the other models down: the listing is the built-in and runtime models, and
 * `configProblem()` says what is wrong with the file until it is fixed.
 */
export class ModelRegistry {
  readonly modelsJsonPath: string;
  readonly credentials: CredentialResolver;
  private readonly runtime = new Map<string, ProviderConfig>();
  private configs = new Map<string, ProviderConfig>();
  /** Providers `models.json` describes, as of the last merge. */
  private described = new Set<string>();
  private readonly listing: SignatureCache<{ models: Model[]; problem?: ModelsConfigError }>;
  /** Bumped by (un)registering a runtime provider: part of the listing's cache key. */
  private runtimeVersion = 0;

  constructor(options: {
    agentDir: string;
    env?: Record<string, string | undefined>;
    credentials?: CredentialResolver;
  }) {
    this.modelsJsonPath = join(options.agentDir, "models.json");
    this.listing = new SignatureCache(this.modelsJsonPath);
    this.credentials = options.credentials ?? new CredentialResolver(options);
  }

  /**
   * Registers (or replaces) a provider from code, applied after `models.json`. A provider
   * with its own `stream` function gets it registered for its `api`, guarded so the agent
   * loop consumes it like a built-in provider (`streamModel` dispatches on `model.api`).
   */
  registerProvider(config: ProviderConfig): void {
    this.unregisterProvider(config.name);
    if (config.stream) {
      if (!config.api) throw new Error(`Provider "${config.name}" has a stream function but no api`);
      registerApiProvider(config.api, guardForeignStream(config.stream));
    }
    this.runtime.set(config.name, config);
    this.runtimeVersion++;
  }

  /** Removes a provider registered with `registerProvider` (and its stream function). */
  unregisterProvider(name: string): void {
    const config = this.runtime.get(name);
    if (!config) return;
    if (config.stream && config.api) unregisterApiProvider(config.api);
    this.runtime.delete(name);
    this.runtimeVersion++;
  }

  /** Every known model; without those of a malformed models.json (see `configProblem`). */
  async list(): Promise<Model[]> {
    return (await this.listed()).models;
  }

  /** What is wrong with models.json as it is now (named file, parse error or field); undefined when it reads. */
  async configProblem(): Promise<ModelsConfigError | undefined> {
    return (await this.listed()).problem;
  }

  private listed(): Promise<{ models: Model[]; problem?: ModelsConfigError }> {
    return this.listing.get(() => this.merge(), String(this.runtimeVersion));
  }

  private async merge(): Promise<{ models: Model[]; problem?: ModelsConfigError }> {
    let fileConfigs: ProviderConfig[] = [];
    let problem: ModelsConfigError | undefined;
    try {
      fileConfigs = await readModelsConfig(this.modelsJsonPath);
    } catch (error) {
      if (!(error instanceof ModelsConfigError)) throw error;
      problem = error;
    }
    let models: Model[] = [...BUILT_IN_MODELS];
    const configs = new Map<string, ProviderConfig>();
    for (const config of [...fileConfigs, ...this.runtime.values()]) {
      try {
        models = applyProviderConfig(models, config, this.modelsJsonPath);
      } catch (error) {
        // a provider of the file that cannot be used is left out; the others stay
        if (!(error instanceof ModelsConfigError) || !fileConfigs.includes(config)) throw error;
        problem ??= error;
        continue;
      }
      configs.set(config.name, config);
    }
    this.configs = configs;
    this.described = new Set(fileConfigs.map((config) => config.name));
    return problem === undefined ? { models } : { models, problem };
  }

  /** Whether `models.json` describes `provider` (as of the last `list()`). */
  describes(provider: string): boolean {
    return this.described.has(provider);
  }

  /** A model by provider and ID, from a fresh `list()`. */
  async find(provider: string, id: string): Promise<Model | undefined> {
    return (await this.list()).find((m) => m.provider === provider && m.id === id);
  }

  /** The API key for a model's provider (auth.json, environment, then models.json `apiKey`). */
  async getApiKey(model: Model): Promise<string | undefined> {
    if (model.api === "demo") return undefined;
    if (!this.configs.has(model.provider)) await this.list();
    return this.credentials.getApiKey(model.provider, this.configs.get(model.provider)?.apiKey);
  }

  /** Models that can be used now: those with a key, keyless custom providers, and the demo. */
  async available(): Promise<Model[]> {
    const models = await this.list();
    // Resolved once per provider: a `!command` key should not run once per model.
    const usable = new Map<string, Promise<boolean>>();
    const out: Model[] = [];
    for (const model of models) {
      if (model.api === "demo") {
        out.push(model);
        continue;
      }
      let check = usable.get(model.provider);
      if (!check) {
        check = this.hasKeyOrIsLocal(model);
        usable.set(model.provider, check);
      }
      if (await check) out.push(model);
    }
    return out;
  }

  /** Whether one model can be used now (the demo always can). */
  async isAvailable(model: Model): Promise<boolean> {
    return model.api === "demo" || (await this.hasKeyOrIsLocal(model));
  }

  /** `defaultModel(this, this.credentials, preferred)`. */
  defaultModel(preferred?: { provider?: string; modelId?: string }): Promise<Model> {
    return defaultModel(this, this.credentials, preferred);
  }

  private async hasKeyOrIsLocal(model: Model): Promise<boolean> {
    if (await this.getApiKey(model)) return true;
    // A custom provider without any apiKey is a local server (Ollama, llama.cpp) needing none.
    const config = this.configs.get(model.provider);
    return config !== undefined && config.apiKey === undefined && !(model.provider in BUILT_IN_PROVIDER_ENV);
  }
}

/**
 * The model a new thread uses. The user's choice wins over what keys happen to be in the
 * environment: the settings' `defaultProvider`/`defaultModel` when the model exists (with
 * or without credentials: a missing key is then reported, not silently replaced), else
 * the first usable model of a provider `models.json` describes, else the first built-in
 * preference with a key, else any usable non-demo model; the offline demo only when no
 * credentials exist at all.
 */
export async function defaultModel(
  registry: ModelRegistry,
  credentials: CredentialResolver = registry.credentials,
  preferred?: { provider?: string; modelId?: string },
): Promise<Model> {
  if (preferred?.provider) {
    const chosen = (await registry.list()).find(
      (m) =>
        m.provider === preferred.provider && (preferred.modelId === undefined || m.id === preferred.modelId),
    );
    if (chosen) return chosen;
  }
  const usable = (await registry.available()).filter((m) => m.api !== "demo");
  const described = usable.find((m) => registry.describes(m.provider));
  if (described) return described;
  const builtInKeys = await credentials.hasBuiltInCredentials();
  if (usable.length === 0 && !builtInKeys) return DEMO_MODEL;
  for (const choice of PREFERRED_DEFAULTS) {
    const match = usable.find((m) => m.provider === choice.provider && m.id === choice.id);
    if (match) return match;
  }
  return usable[0] ?? DEMO_MODEL;
}
