/**
 * `@mariozechner/pi-ai` for extensions: TypeBox's `Type` and pi's `StringEnum`, and the
 * model calls (`complete`, `stream`, `streamSimple`, `getModel`, `registerApiProvider`)
 * over KnightCode's providers, so an extension that asks a model something (a custom
 * compaction summary, a handoff prompt) goes through the same wire code as a turn.
 */
import {
  type AssistantMessageStream,
  BUILT_IN_MODELS,
  type Context,
  createAssistantMessageStream,
  calculateCost as knightCalculateCost,
  complete as knightComplete,
  registerApiProvider as knightRegisterApiProvider,
  type Model,
  type StreamFunction,
  type StreamOptions,
  streamModel,
  unregisterApiProvider,
} from "@knightcode/ai";
import { Type } from "typebox";

export { Type, unregisterApiProvider };

/** A string enum schema that every provider accepts (`{ type: "string", enum: [...] }`). */
export function StringEnum<T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
) {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
}

/** pi's options: KnightCode's, plus fields KnightCode's providers ignore. */
type PiStreamOptions = StreamOptions & { reasoning?: StreamOptions["thinkingLevel"]; [key: string]: unknown };

function knightOptions(options: PiStreamOptions | undefined): StreamOptions | undefined {
  if (!options) return undefined;
  const { reasoning, ...rest } = options;
  return reasoning !== undefined && rest.thinkingLevel === undefined
    ? { ...rest, thinkingLevel: reasoning }
    : rest;
}

/**
 * One request to the end: the final assistant message (`stopReason` says how it ended).
 * The model may still be pending: pi's `modelRegistry.find()` is synchronous, KnightCode's
 * answers with a promise, and pi code passes what it got straight here.
 */
export async function complete(model: Model | Promise<Model>, context: Context, options?: PiStreamOptions) {
  return knightComplete(await model, context, knightOptions(options));
}

export const completeSimple = complete;

/** A request's event stream; iterate it, or `await stream.result()`. */
export function stream(model: Model, context: Context, options?: PiStreamOptions): AssistantMessageStream {
  return streamModel(model, context, knightOptions(options));
}

export const streamSimple = stream;

/**
 * pi's per-API stream functions speak their wire format whatever `model.api` says: a
 * provider's own `streamSimple` delegates to them with its model (gitlab-duo does), and
 * dispatching on its custom api would call that provider again.
 */
function streamAs(api: Model["api"]) {
  return (model: Model, context: Context, options?: PiStreamOptions) =>
    stream({ ...model, api }, context, options);
}

export const streamAnthropic = streamAs("anthropic-messages");
export const streamSimpleAnthropic = streamAnthropic;
export const streamOpenAIResponses = streamAs("openai-responses");
export const streamSimpleOpenAIResponses = streamOpenAIResponses;
export const streamOpenAICompletions = streamAs("openai-completions");
export const streamSimpleOpenAICompletions = streamOpenAICompletions;

/** A model of KnightCode's built-in catalog; models.json models come from `ctx.modelRegistry`. */
export function getModel(provider: string, id: string): Model | undefined {
  return BUILT_IN_MODELS.find((m) => m.provider === provider && m.id === id);
}

export function getModels(provider: string): Model[] {
  return BUILT_IN_MODELS.filter((m) => m.provider === provider);
}

export function getProviders(): string[] {
  return [...new Set(BUILT_IN_MODELS.map((m) => m.provider))];
}

/** pi registers `{ api, stream, streamSimple }`; KnightCode keys a stream function by API. */
export function registerApiProvider(
  provider: { api: string; stream?: StreamFunction; streamSimple?: StreamFunction } | string,
  fn?: StreamFunction,
): void {
  if (typeof provider === "string") {
    if (fn) knightRegisterApiProvider(provider, fn);
    return;
  }
  const streamFn = provider.streamSimple ?? provider.stream;
  if (streamFn) knightRegisterApiProvider(provider.api, streamFn);
}

/** pi's `calculateCost(model, usage)`: fills `usage.cost` and returns it. */
export function calculateCost(model: Model, usage: Parameters<typeof knightCalculateCost>[1]) {
  usage.cost = knightCalculateCost(model.cost, usage);
  return usage.cost;
}

/** An event stream an extension's provider pushes events into. */
export function createAssistantMessageEventStream() {
  const { stream, push } = createAssistantMessageStream();
  return Object.assign(stream, { push, end: () => {} });
}
