import { createAssistantMessageStream } from "./event-stream.ts";
import { AssistantMessageBuilder } from "./message-builder.ts";
import { streamAnthropicMessages } from "./providers/anthropic-messages.ts";
import { streamDemo } from "./providers/demo.ts";
import { streamOpenAICompletions } from "./providers/openai-completions.ts";
import { streamOpenAIResponses } from "./providers/openai-responses.ts";
import type {
  AssistantMessage,
  AssistantMessageStream,
  Context,
  Model,
  StreamFunction,
  StreamOptions,
} from "./types.ts";

const BUILT_IN: Record<string, StreamFunction> = {
  "anthropic-messages": streamAnthropicMessages,
  "openai-responses": streamOpenAIResponses,
  "openai-completions": streamOpenAICompletions,
  demo: streamDemo,
};
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
