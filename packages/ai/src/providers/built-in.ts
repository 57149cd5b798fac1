/**
 * `@knightcode/ai/providers`: the HTTP providers' stream functions and request builders,
 * apart from the package index, which reaches them through `streamModel` and loads each
 * with its first request (`lazy-provider.ts`).
 */
export { anthropicRequest, streamAnthropicMessages } from "./anthropic-messages.ts";
export { chatCompletionsRequest, streamOpenAICompletions } from "./openai-completions.ts";
export { responsesRequest, streamOpenAIResponses } from "./openai-responses.ts";
