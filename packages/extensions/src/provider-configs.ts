/**
 * Providers registered by extensions, checked and turned into the model registry's
 * provider configs. A provider the registry could not list (no base URL, no wire format,
 * no models) is refused with a warning here, so one extension can never break
 * `model/list` for every thread.
 *
 * A provider with its own `streamSimple` (pi's custom APIs) names an API of its own, which
 * every model of it uses; the registry guards the function and `streamModel` dispatches to
 * it. A built-in API name is refused there: the stream registry is the server's, and one
 * thread's extension must not take over every thread's Anthropic or OpenAI requests.
 */
import type { ProviderConfig as RegistryProviderConfig, StreamFunction, StreamOptions } from "@knightcode/ai";
import type { ProviderConfig } from "./api-types.ts";

const WIRE_APIS: readonly string[] = ["openai-completions", "openai-responses", "anthropic-messages"];
/** API names KnightCode's own stream functions answer to. */
const BUILT_IN_APIS: readonly string[] = [...WIRE_APIS, "demo"];

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
  const streamSimple = config.streamSimple;
  if (streamSimple !== undefined) {
    if (typeof streamSimple !== "function")
      return { error: `Provider "${name}" streamSimple is not a function` };
    if (typeof config.api !== "string" || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(config.api)) {
      return { error: `Provider "${name}" has a streamSimple but no api name for it` };
    }
    if (BUILT_IN_APIS.includes(config.api)) {
      return {
        error: `Provider "${name}" streamSimple needs an api of its own, not the built-in "${config.api}"`,
      };
    }
  }
  for (const model of models) {
    const api = model.api ?? config.api;
    if (typeof model.id !== "string" || model.id === "")
      return { error: `Provider "${name}" has a model without id` };
    if (streamSimple !== undefined) {
      if (api !== config.api) {
        return { error: `Provider "${name}" model "${model.id}" must use the api of its streamSimple` };
      }
    } else if (!api || !WIRE_APIS.includes(api)) {
      return { error: `Provider "${name}" model "${model.id}" needs an api (${WIRE_APIS.join(", ")})` };
    }
  }
  return {
    config: {
      name,
      baseUrl: config.baseUrl,
      ...(config.api ? { api: config.api } : {}),
      ...(config.apiKey !== undefined ? { apiKey: config.apiKey } : {}),
      ...(config.headers ? { headers: config.headers } : {}),
      ...(streamSimple ? { stream: piStream(streamSimple) } : {}),
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

/** pi's stream functions read the thinking level as `reasoning` (absent when off). */
function piStream(streamSimple: StreamFunction): StreamFunction {
  return (model, context, options) => {
    const level = options?.thinkingLevel;
    const piOptions: StreamOptions & { reasoning?: string } =
      level && level !== "off" ? { ...options, reasoning: level } : { ...options };
    return streamSimple(model, context, piOptions);
  };
}
