/**
 * The model layer's vocabulary: messages as they are stored in session files and sent to
 * providers, the normalized streaming events every provider produces, and model metadata.
 *
 * These shapes are shared by the session store, the agent loop, compaction and the thread
 * manager. The message shapes match pi's session format so pi transcripts load unchanged.
 */

/** Wire formats a provider can speak. `demo` is the built-in offline model. */
export type Api = "anthropic-messages" | "openai-responses" | "openai-completions" | "demo";

/** Thinking levels a user can pick; a non-reasoning model offers only `off`. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/** How a failure is classified for `turn/completed.error.kind`. */
export type ErrorKind = "auth" | "rateLimit" | "contextOverflow" | "network" | "provider" | "other";

export interface TextContent {
  type: "text";
  text: string;
  /** Vendor item ID of the message this text came from (OpenAI Responses `msg_…`), for replay. */
  textSignature?: string;
}

export interface ImageContent {
  type: "image";
  /** Base64 without a data: prefix. */
  data: string;
  mimeType: string;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  /** Opaque provider signature that must be echoed back (Anthropic) or the encrypted reasoning item (OpenAI). */
  thinkingSignature?: string;
  redacted?: boolean;
}

export interface ToolCall {
  type: "toolCall";
  /** The provider's call ID; it becomes the protocol item ID. */
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Vendor item ID when it differs from the call ID (OpenAI Responses `fc_…`), for replay. */
  providerItemId?: string;
  /** Gemini's opaque thought signature for this call, sent back with it on the next request. */
  thoughtSignature?: string;
}

export interface Cost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Absent in some old pi files; readers fall back to the sum of the four counts. */
  totalTokens?: number;
  cost: Cost;
}

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  /** Unix milliseconds. */
  timestamp: number;
}

export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api: Api | string;
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  /** Classification of `errorMessage`, when the provider layer knows it. */
  errorKind?: ErrorKind;
  /** Unix milliseconds when the response started. */
  timestamp: number;
  /** Milliseconds from request to final event, when measured. */
  durationMs?: number;
}

export interface ToolResultMessage<TDetails = unknown> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: TDetails;
  isError: boolean;
  timestamp: number;
}

/** Messages a provider understands. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** A tool as the model sees it: name, description and a JSON Schema for its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema (a TypeBox schema is one). */
  parameters: Record<string, unknown>;
}

/** Everything one model request needs. */
export interface Context {
  systemPrompt?: string;
  messages: Message[];
  tools?: ToolDefinition[];
}

export interface ModelCost {
  /** Dollars per million tokens. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** A model the registry knows, built in or from models.json / extensions. */
export interface Model {
  id: string;
  name: string;
  /** A built-in wire format, or the name an extension's own stream function is registered under. */
  api: Api | (string & {});
  provider: string;
  baseUrl?: string;
  reasoning: boolean;
  input: ("text" | "image")[];
  cost: ModelCost;
  contextWindow: number;
  maxTokens: number;
  headers?: Record<string, string>;
  /** Provider quirks for OpenAI-compatible servers, as set in models.json (see compat.ts). */
  compat?: Record<string, unknown>;
  /** Accepted thinking levels; `["off"]` for non-reasoning models. */
  thinkingLevels: ThinkingLevel[];
}

/** Options for one streaming request. */
export interface StreamOptions {
  apiKey?: string;
  signal?: AbortSignal;
  thinkingLevel?: ThinkingLevel;
  maxTokens?: number;
  temperature?: number;
  /** When true, no prompt-cache write markers are sent (one-off summary prompts). */
  disablePromptCacheWrites?: boolean;
  /** Session ID some providers use for cache affinity. */
  sessionId?: string;
  headers?: Record<string, string>;
  /**
   * Sees the provider request body right before it is sent; a returned value other than
   * `undefined` replaces it (extensions' `before_provider_request`).
   */
  onPayload?: (payload: unknown) => unknown | Promise<unknown>;
  /**
   * Sees the HTTP status and headers of a request the provider accepted, before its stream
   * is read (extensions' `after_provider_response`); a failed status raises an error instead.
   */
  onResponse?: (response: ProviderResponse) => void | Promise<void>;
}

/** What `StreamOptions.onResponse` sees; header names are lower case. */
export interface ProviderResponse {
  status: number;
  headers: Record<string, string>;
}

/**
 * Normalized streaming events. Every provider yields `start`, then content events, then
 * exactly one `done` or `error` carrying the final message. `partial` is the message so far.
 */
export type AssistantMessageEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
  | { type: "done"; reason: Exclude<StopReason, "error" | "aborted">; message: AssistantMessage }
  | { type: "error"; reason: "error" | "aborted"; error: AssistantMessage; retryAfterMs?: number };

/** A running model request: async-iterate the events, or await `result()` for the final message. */
export interface AssistantMessageStream extends AsyncIterable<AssistantMessageEvent> {
  result(): Promise<AssistantMessage>;
}

/** The function every provider implements. */
export type StreamFunction = (
  model: Model,
  context: Context,
  options?: StreamOptions,
) => AssistantMessageStream;

/** An assistant message of `model` with no content yet: zero usage, `stop`, stamped now. */
export function emptyAssistantMessage(model: Model): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: Date.now(),
  };
}

/** A zeroed usage record. */
export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}
