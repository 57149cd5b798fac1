/**
 * Providers registered by extensions, checked and turned into the model registry's
 * provider configs. A provider the registry could not list (no base URL, no wire format,
 * no models) is refused with a warning here, so one extension can never break
 * `model/list` for every thread.
 */
import type { Api, ProviderConfig as RegistryProviderConfig } from "@knightcode/ai";
import type { ProviderConfig } from "./api-types.ts";

const APIS: readonly Api[] = ["openai-completions", "openai-responses", "anthropic-messages"];

/** The registry form of an extension's provider, or why it is refused. */
export function registryProvider(
  name: string,
  config: ProviderConfig,
): { config: RegistryProviderConfig } | { error: string } {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) return { error: `Provider name "${name}" is not usable` };
  if (typeof config.baseUrl !== "string" || config.baseUrl === "") {
    return { error: `Provider "${name}" needs a baseUrl` };
  }
  const models = Array.isArray(config.models) ? config.models : [];
  if (models.length === 0) return { error: `Provider "${name}" lists no models` };
  for (const model of models) {
    const api = model.api ?? config.api;
    if (typeof model.id !== "string" || model.id === "")
      return { error: `Provider "${name}" has a model without id` };
    if (!api || !APIS.includes(api)) {
      return { error: `Provider "${name}" model "${model.id}" needs an api (${APIS.join(", ")})` };
    }
  }
  return {
    config: {
      name,
      baseUrl: config.baseUrl,
      ...(config.api ? { api: config.api } : {}),
      ...(config.apiKey !== undefined ? { apiKey: config.apiKey } : {}),
      ...(config.headers ? { headers: config.headers } : {}),
      models: models.map((model) => ({
        id: model.id,
        ...(model.name !== undefined ? { name: model.name } : {}),
        ...(model.api !== undefined ? { api: model.api } : {}),
        ...(model.reasoning !== undefined ? { reasoning: model.reasoning } : {}),
        ...(model.input !== undefined ? { input: model.input } : {}),
        ...(model.contextWindow !== undefined ? { contextWindow: model.contextWindow } : {}),
        ...(model.maxTokens !== undefined ? { maxTokens: model.maxTokens } : {}),
        ...(model.cost !== undefined ? { cost: model.cost } : {}),
        ...(model.compat !== undefined ? { compat: model.compat } : {}),
      })),
    },
  };
}
