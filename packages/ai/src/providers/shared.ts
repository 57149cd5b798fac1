import { createAssistantMessageStream } from "../event-stream.ts";
import { AssistantMessageBuilder } from "../message-builder.ts";
import { BUILT_IN_PROVIDER_ENV } from "../provider-env.ts";
import type {
  AssistantMessage,
  AssistantMessageStream,
  Context,
  ImageContent,
  Message,
  Model,
  ProviderResponse,
  StreamOptions,
  TextContent,
  ToolResultMessage,
} from "../types.ts";

/** What an SDK client is built from; together with the API, the client cache's key (`sdk.ts`). */
export interface ClientSettings {
  apiKey: string;
  baseURL: string;
  defaultHeaders: Record<string, string>;
}

/** Default endpoints for vendors whose key is mandatory. */
export const VENDOR_BASE_URLS = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com/v1",
} as const;

/** Raised before any request when a hosted vendor has no API key; classified as `auth`. */
export class MissingApiKeyError extends Error {
  constructor(provider: string) {
    const env = BUILT_IN_PROVIDER_ENV[provider] ?? [];
    const where =
      env.length === 0 ? "save one in auth.json" : `set ${env.join(" or ")}, or save one in auth.json`;
    super(`No API key for provider "${provider}": authentication required (${where})`);
    this.name = "MissingApiKeyError";
  }
}

/**
 * The key to send. Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM) need none, so a
 * placeholder stands in; a hosted vendor URL without a key is an auth failure.
 */
export function requireApiKey(model: Model, options: StreamOptions | undefined, vendorUrl: string): string {
  if (options?.apiKey) return options.apiKey;
  const baseUrl = model.baseUrl ?? vendorUrl;
  if (baseUrl.replace(/\/+$/, "") === vendorUrl) throw new MissingApiKeyError(model.provider);
  return "not-needed";
}

/**
 * Runs a provider body with the shared framing: a builder, `start`, and any throw turned
 * into a classified `error` event (or `aborted` when the caller's signal fired).
 */
export function runProvider(
  model: Model,
  options: StreamOptions | undefined,
  body: (builder: AssistantMessageBuilder, ready: () => Promise<void> | undefined) => Promise<void>,
): AssistantMessageStream {
  const { stream, push, ready } = createAssistantMessageStream();
  const builder = new AssistantMessageBuilder(model, push);
  builder.start();
  void (async () => {
    try {
      if (options?.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
      await body(builder, ready);
      if (!builder.isFinished) builder.fail(new Error("Provider finished without a result"), options?.signal);
    } catch (error) {
      builder.fail(error, options?.signal);
    }
  })();
  return stream;
}

/** The text parts of a user or tool-result content array, joined. */
export function textOf(content: string | (TextContent | ImageContent)[]): string {
  if (typeof content === "string") return content;
  return content
    .filter((part): part is TextContent => part.type === "text")
    .map((part) => part.text)
    .join("\n");
}

/** The images in a content array. */
export function imagesOf(content: string | (TextContent | ImageContent)[]): ImageContent[] {
  return typeof content === "string"
    ? []
    : content.filter((part): part is ImageContent => part.type === "image");
}

/** Text for a tool result, never empty (vendors reject empty tool results). */
export function toolResultText(message: ToolResultMessage): string {
  const text = textOf(message.content);
  if (text) return text;
  return imagesOf(message.content).length > 0 ? "(see attached image)" : "(no output)";
}

/**
 * Messages worth sending: assistant turns that failed or were aborted carry partial content
 * the vendor would reject (e.g. a tool call without a result), so they are dropped.
 */
export function sendableMessages(context: Context): Message[] {
  return context.messages.filter(
    (m) => m.role !== "assistant" || (m.stopReason !== "error" && m.stopReason !== "aborted"),
  );
}

/** The images of one tool result, to be sent in a user message after the tool outputs. */
export interface ToolResultImages {
  toolCallId: string;
  toolName: string;
  images: ImageContent[];
}

/** Stands, in {@link withToolImagesAfterResults}' output, for one user message of tool images. */
export interface ToolImagesMessage {
  role: "toolImages";
  /** In the order of the calls in the assistant message they answer. */
  results: ToolResultImages[];
}

/**
 * The messages with the images of tool results moved after the last tool result of each
 * run of results. The OpenAI formats carry a tool's output as text, so its images ride in a
 * user message; that message must not sit between two tool outputs of one assistant turn
 * (Chat Completions rejects any message between an assistant's tool calls and their tool
 * messages). The images of a run are gathered into one marker, ordered by the position of
 * their call in the assistant message before (results with no such call keep their order,
 * after the others).
 */
export function withToolImagesAfterResults(messages: Message[]): (Message | ToolImagesMessage)[] {
  const out: (Message | ToolImagesMessage)[] = [];
  let callOrder = new Map<string, number>();
  let pending: ToolResultImages[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const rank = (r: ToolResultImages) => callOrder.get(r.toolCallId) ?? Number.MAX_SAFE_INTEGER;
    // Array.prototype.sort is stable, so results with equal rank keep their order.
    out.push({ role: "toolImages", results: pending.sort((a, b) => rank(a) - rank(b)) });
    pending = [];
  };
  for (const message of messages) {
    if (message.role === "toolResult") {
      out.push(message);
      const images = imagesOf(message.content);
      if (images.length > 0) {
        pending.push({ toolCallId: message.toolCallId, toolName: message.toolName, images });
      }
      continue;
    }
    flush();
    if (message.role === "assistant") callOrder = toolCallOrder(message);
    out.push(message);
  }
  flush();
  return out;
}

function toolCallOrder(message: AssistantMessage): Map<string, number> {
  const order = new Map<string, number>();
  for (const block of message.content) if (block.type === "toolCall") order.set(block.id, order.size);
  return order;
}

/** The text that introduces one tool result's images in the user message that carries them. */
export function toolImagesLabel(result: ToolResultImages): string {
  const noun = result.images.length === 1 ? "Image" : "Images";
  return `${noun} returned by the ${result.toolName} call ${result.toolCallId}:`;
}

/** Merges model and per-request headers, per-request winning. */
export function mergedHeaders(model: Model, options: StreamOptions | undefined): Record<string, string> {
  return { ...model.headers, ...options?.headers };
}

/**
 * SDK client settings for `model`: its key (required for the vendor's own URL), base URL
 * and merged headers. The SDK loads on the first request and the client is reused while
 * these stay the same (see sdk.ts).
 */
export function clientSettings(
  model: Model,
  options: StreamOptions | undefined,
  vendorUrl: string,
): ClientSettings {
  return {
    apiKey: requireApiKey(model, options, vendorUrl),
    baseURL: model.baseUrl ?? vendorUrl,
    defaultHeaders: mergedHeaders(model, options),
  };
}

/**
 * A signal for one request that follows `parent`. An SDK hooks a listener onto the signal
 * it is given and, when its body is read raw instead of through its own stream, only lets
 * go of it once the response is garbage-collected; handing it this per-request signal and
 * calling `release` when the request is over keeps a long-lived caller signal (one per
 * agent run, many requests) free of a listener per request.
 */
export function requestSignal(parent: AbortSignal | undefined): {
  signal: AbortSignal | undefined;
  release: () => void;
} {
  if (!parent) return { signal: undefined, release: () => {} };
  const controller = new AbortController();
  const forward = () => controller.abort(parent.reason);
  if (parent.aborted) forward();
  else parent.addEventListener("abort", forward, { once: true });
  return { signal: controller.signal, release: () => parent.removeEventListener("abort", forward) };
}

/** The SDKs' test for an aborted fetch: a spec `AbortError`, or Expo's cancellation. */
export function isAbortError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const e = error as { name?: unknown; message?: unknown };
  return e.name === "AbortError" || String(e.message).includes("FetchRequestCanceledException");
}

/** The request body as `options.onPayload` leaves it (unchanged when it answers `undefined`). */
export async function finalPayload<T>(payload: T, options: StreamOptions | undefined): Promise<T> {
  if (!options?.onPayload) return payload;
  const replaced = await options.onPayload(payload);
  return (replaced === undefined ? payload : replaced) as T;
}

/** Shows `options.onResponse` the status and headers of an accepted request (nothing to do without it). */
export async function reportResponse(
  response: { status: number; headers: Headers },
  options: StreamOptions | undefined,
): Promise<void> {
  if (!options?.onResponse) return;
  const seen: ProviderResponse = { status: response.status, headers: {} };
  response.headers.forEach((value, name) => {
    seen.headers[name] = value;
  });
  await options.onResponse(seen);
}
