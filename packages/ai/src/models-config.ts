import { readFile } from "node:fs/promises";
import { COMPAT_KEYS } from "./compat.ts";
import { defaultThinkingLevels } from "./thinking.ts";
import type { Api, Model, ModelCost, StreamFunction } from "./types.ts";

/** A malformed `models.json`; the message names the file and the offending field. */
export class ModelsConfigError extends Error {
  constructor(
    readonly path: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Invalid ${path}: ${detail}`, options);
    this.name = "ModelsConfigError";
  }
}

/** One provider block of `models.json` after validation. */
export interface ProviderConfig {
  name: string;
  baseUrl?: string;
  /** A built-in wire format; with `stream`, any name (the API `stream` is registered under). */
  api?: Api | (string & {});
  apiKey?: string;
  headers?: Record<string, string>;
  compat?: Record<string, unknown>;
  models: ModelOverride[];
  /**
   * Streams the models of `api` with the provider's own code (an extension's `streamSimple`)
   * instead of a built-in wire format. Never read from models.json.
   */
  stream?: StreamFunction;
}

/** A model entry: only `id` is required; omitted fields take defaults or built-in values. */
export interface ModelOverride {
  id: string;
  name?: string;
  api?: Api | (string & {});
  reasoning?: boolean;
  input?: ("text" | "image")[];
  contextWindow?: number;
  maxTokens?: number;
  cost?: ModelCost;
  thinkingLevels?: Model["thinkingLevels"];
  /** Compat settings for this model only, over the provider's. */
  compat?: Record<string, unknown>;
}

const APIS: readonly Api[] = ["openai-completions", "openai-responses", "anthropic-messages"];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Validates parsed `models.json` content into provider configs, or throws `ModelsConfigError`. */
export function parseModelsConfig(data: unknown, path: string): ProviderConfig[] {
  const fail = (detail: string): never => {
    throw new ModelsConfigError(path, detail);
  };
  if (!isObject(data)) fail('expected an object with a "providers" field');
  const providers = (data as Json).providers;
  if (providers === undefined) return [];
  if (!isObject(providers)) fail('"providers" must be an object keyed by provider name');
  return Object.entries(providers as Json).map(([name, raw]) => {
    const at = `providers.${name}`;
    if (!isObject(raw)) fail(`${at} must be an object`);
    const p = raw as Json;
    const optionalString = (key: string) => {
      const value = p[key];
      if (value !== undefined && typeof value !== "string") fail(`${at}.${key} must be a string`);
      return value as string | undefined;
    };
    const api = optionalString("api");
    if (api !== undefined && !APIS.includes(api as Api)) fail(`${at}.api must be one of ${APIS.join(", ")}`);
    if (
      p.headers !== undefined &&
      (!isObject(p.headers) || Object.values(p.headers).some((v) => typeof v !== "string"))
    ) {
      fail(`${at}.headers must map names to strings`);
    }
    if (p.compat !== undefined) checkCompat(p.compat, `${at}.compat`, fail);
    const models = p.models ?? [];
    if (!Array.isArray(models)) fail(`${at}.models must be an array`);
    const config: ProviderConfig = {
      name,
      models: (models as unknown[]).map((m, i) => parseModel(m, `${at}.models[${i}]`, fail)),
    };
    const baseUrl = optionalString("baseUrl");
    const apiKey = optionalString("apiKey");
    if (baseUrl !== undefined) config.baseUrl = baseUrl;
    if (api !== undefined) config.api = api as Api;
    if (apiKey !== undefined) config.apiKey = apiKey;
    if (p.headers !== undefined) config.headers = p.headers as Record<string, string>;
    if (p.compat !== undefined) config.compat = p.compat as Record<string, unknown>;
    return config;
  });
}

/**
 * A `compat` block must be an object; the keys KnightCode reads must have their documented
 * type. Other keys are kept and ignored, so a file written for another agent still loads.
 */
function checkCompat(value: unknown, at: string, fail: (detail: string) => never): void {
  if (!isObject(value)) fail(`${at} must be an object`);
  for (const [key, type] of Object.entries(COMPAT_KEYS)) {
    const setting = (value as Json)[key];
    if (setting === undefined) continue;
    if (type === "boolean") {
      if (typeof setting !== "boolean") fail(`${at}.${key} must be a boolean`);
    } else if (!(type as readonly unknown[]).includes(setting)) {
      fail(`${at}.${key} must be one of ${type.join(", ")}`);
    }
  }
}

function parseModel(raw: unknown, at: string, fail: (detail: string) => never): ModelOverride {
  if (!isObject(raw)) fail(`${at} must be an object`);
  const m = raw as Json;
  if (typeof m.id !== "string" || m.id === "") fail(`${at}.id must be a non-empty string`);
  const out: ModelOverride = { id: m.id as string };
  if (m.name !== undefined)
    out.name = typeof m.name === "string" ? m.name : fail(`${at}.name must be a string`);
  if (m.api !== undefined) {
    out.api = APIS.includes(m.api as Api)
      ? (m.api as Api)
      : fail(`${at}.api must be one of ${APIS.join(", ")}`);
  }
  if (m.reasoning !== undefined) {
    out.reasoning =
      typeof m.reasoning === "boolean" ? m.reasoning : fail(`${at}.reasoning must be a boolean`);
  }
  if (m.input !== undefined) {
    const ok = Array.isArray(m.input) && m.input.every((x) => x === "text" || x === "image");
    out.input = ok ? (m.input as ("text" | "image")[]) : fail(`${at}.input must list "text" and/or "image"`);
  }
  for (const key of ["contextWindow", "maxTokens"] as const) {
    const value = m[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value <= 0)
      fail(`${at}.${key} must be a positive integer`);
    out[key] = value as number;
  }
  if (m.compat !== undefined) {
    checkCompat(m.compat, `${at}.compat`, fail);
    out.compat = m.compat as Record<string, unknown>;
  }
  if (m.cost !== undefined) {
    const cost = m.cost;
    const keys = ["input", "output", "cacheRead", "cacheWrite"] as const;
    if (
      !isObject(cost) ||
      keys.some((k) => cost[k] !== undefined && (typeof cost[k] !== "number" || (cost[k] as number) < 0))
    ) {
      fail(`${at}.cost must hold non-negative numbers for input, output, cacheRead, cacheWrite`);
    }
    const c = cost as Partial<ModelCost>;
    out.cost = {
      input: c.input ?? 0,
      output: c.output ?? 0,
      cacheRead: c.cacheRead ?? 0,
      cacheWrite: c.cacheWrite ?? 0,
    };
  }
  return out;
}

/** Reads and validates `models.json`; a missing file means no providers. */
export async function readModelsConfig(path: string): Promise<ProviderConfig[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new ModelsConfigError(path, (error as Error).message, { cause: error });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ModelsConfigError(path, `not valid JSON (${(error as Error).message})`, { cause: error });
  }
  return parseModelsConfig(data, path);
}

/** Applies one provider config over the models known so far (built-ins or earlier entries). */
export function applyProviderConfig(models: Model[], config: ProviderConfig, path: string): Model[] {
  const existing = models.filter((m) => m.provider === config.name);
  const others = models.filter((m) => m.provider !== config.name);
  const providerLevel = (m: Model): Model => ({
    ...m,
    ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
    ...(config.api ? { api: config.api } : {}),
    ...(config.headers ? { headers: { ...m.headers, ...config.headers } } : {}),
    ...(config.compat ? { compat: { ...m.compat, ...config.compat } } : {}),
  });
  const merged = existing.map(providerLevel);
  for (const entry of config.models) {
    const at = merged.findIndex((m) => m.id === entry.id);
    const base = at >= 0 ? merged[at] : undefined;
    const api = entry.api ?? config.api ?? base?.api;
    if (!api) throw new ModelsConfigError(path, `providers.${config.name} needs "api" for model ${entry.id}`);
    const baseUrl = config.baseUrl ?? base?.baseUrl;
    if (!baseUrl) throw new ModelsConfigError(path, `providers.${config.name} needs "baseUrl"`);
    const reasoning = entry.reasoning ?? base?.reasoning ?? false;
    const model: Model = {
      id: entry.id,
      name: entry.name ?? base?.name ?? entry.id,
      api,
      provider: config.name,
      baseUrl,
      reasoning,
      input: entry.input ?? base?.input ?? ["text"],
      cost: entry.cost ?? base?.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: entry.contextWindow ?? base?.contextWindow ?? 128_000,
      maxTokens: entry.maxTokens ?? base?.maxTokens ?? 16_384,
      thinkingLevels:
        entry.thinkingLevels ??
        (base && base.reasoning === reasoning ? base.thinkingLevels : defaultThinkingLevels(reasoning)),
    };
    const headers = config.headers ?? base?.headers;
    // Model settings win over the provider's, which win over what the model had before.
    const compat =
      config.compat || entry.compat ? { ...base?.compat, ...config.compat, ...entry.compat } : base?.compat;
    if (headers) model.headers = headers;
    if (compat) model.compat = compat;
    if (at >= 0) merged[at] = model;
    else merged.push(model);
  }
  return [...others, ...merged];
}
