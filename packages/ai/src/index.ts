export { BUILT_IN_MODELS, BUILT_IN_PROVIDER_ENV, PREFERRED_DEFAULTS } from "./catalog.ts";
export type { ChatCompat } from "./compat.ts";
export { COMPAT_KEYS, chatCompat, detectedCompat } from "./compat.ts";
export { calculateCost, totalTokens } from "./cost.ts";
export { CredentialError, CredentialResolver, resolveKeyValue } from "./credentials.ts";
export type { ProviderFailure } from "./errors.ts";
export { classifyError, describeFailure, parseRetryAfter } from "./errors.ts";
export type { AssistantMessageStreamController } from "./event-stream.ts";
export { createAssistantMessageStream, STREAM_HIGH_WATER_EVENTS } from "./event-stream.ts";
export { AssistantMessageBuilder, parseArguments, StreamCutError } from "./message-builder.ts";
export { defaultModel, ModelRegistry } from "./model-registry.ts";
export type { ModelOverride, ProviderConfig } from "./models-config.ts";
export {
  applyProviderConfig,
  ModelsConfigError,
  parseModelsConfig,
  readModelsConfig,
} from "./models-config.ts";
export type { DemoPlan } from "./providers/demo.ts";
export { DEMO_MODEL, DEMO_WRITE_CONTENT, planDemoReply, streamDemo } from "./providers/demo.ts";
export { MissingApiKeyError } from "./providers/shared.ts";
export {
  complete,
  preloadProvider,
  registerApiProvider,
  streamModel,
  unregisterApiProvider,
} from "./stream.ts";
export {
  ANTHROPIC_THINKING_BUDGETS,
  anthropicThinking,
  defaultThinkingLevels,
  effectiveThinkingLevel,
  openaiReasoningEffort,
} from "./thinking.ts";
export type {
  Api,
  AssistantMessage,
  AssistantMessageEvent,
  AssistantMessageStream,
  Context,
  Cost,
  ErrorKind,
  ImageContent,
  Message,
  Model,
  ModelCost,
  ProviderResponse,
  StopReason,
  StreamFunction,
  StreamOptions,
  TextContent,
  ThinkingContent,
  ThinkingLevel,
  ToolCall,
  ToolDefinition,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "./types.ts";
export { emptyAssistantMessage, emptyUsage, THINKING_LEVELS } from "./types.ts";
export { waitOrAbort } from "./wait-or-abort.ts";
