import { createAssistantMessageStream } from "./event-stream.ts";
import { AssistantMessageBuilder } from "./message-builder.ts";
import { streamDemo } from "./providers/demo.ts";
import { type LazyProvider, lazyProvider } from "./providers/lazy-provider.ts";
import { preloadSdk } from "./providers/sdk.ts";
import type {
  AssistantMessage,
  AssistantMessageStream,
  Context,
  Model,
  StreamFunction,
  StreamOptions,
} from "./types.ts";

/** The HTTP providers, each loaded with its first request (or `preloadProvider`). */
const LAZY: Record<string, LazyProvider> = {
  "anthropic-messages": lazyProvider(
    async () => (await import("./providers/anthropic-messages.ts")).streamAnthropicMessages,
  ),
  "openai-responses": lazyProvider(
    async () => (await import("./providers/openai-responses.ts")).streamOpenAIResponses,
  ),
  "openai-completions": lazyProvider(
    async () => (await import("./providers/openai-completions.ts")).streamOpenAICompletions,
  ),
};
const BUILT_IN: Record<string, StreamFunction> = {
  ...Object.fromEntries(Object.entries(LAZY).map(([api, provider]) => [api, provider.stream])),
  demo: streamDemo,
};

/**
 * Loads what the first request to `api` needs (the provider's module and its SDK) in the
 * background, so a thread's first turn does not wait for it. Never rejects.
 */
export async function preloadProvider(api: string): Promise<void> {
  await Promise.all([preloadSdk(api), LAZY[api]?.preload()]);
}
const registered = new Map<string, StreamFunction>();

/** Adds (or replaces) the stream function for an API name, e.g. from an extension. */
export function registerApiProvider(api: string, stream: StreamFunction): void {
  registered.set(api, stream);
}

/** Removes an API registered with `registerApiProvider`. */
export function unregisterApiProvider(api: string): void {
  registered.delete(api);
}

/** Streams one model request, dispatching on `model.api`. Never throws; failures are `error` events. */
export function streamModel(model: Model, context: Context, options?: StreamOptions): AssistantMessageStream {
  const provider = registered.get(model.api) ?? BUILT_IN[model.api];
  if (provider) return provider(model, context, options);
  const { stream, push } = createAssistantMessageStream();
  const builder = new AssistantMessageBuilder(model, push);
  builder.start();
  builder.fail(new Error(`No provider for API "${model.api}" (model ${model.provider}/${model.id})`));
  return stream;
}

/** Runs one request to the end and returns the final message (check `stopReason` for errors). */
export function complete(model: Model, context: Context, options?: StreamOptions): Promise<AssistantMessage> {
  return streamModel(model, context, options).result();
}
