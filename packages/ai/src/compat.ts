/**
 * Compat settings: what an OpenAI-compatible server needs beyond the OpenAI wire format.
 *
 * They come from `models.json` (`compat` on a provider, overridden per model) and default
 * from the provider name or base URL where that identifies the server beyond doubt, so a
 * DeepSeek or Gemini entry works without any. `docs/providers.md` lists them.
 */
import type { Model } from "./types.ts";

export interface ChatCompat {
  /** `max_completion_tokens` (OpenAI itself) or `max_tokens` (most compatible servers). */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** Send `stream_options.include_usage`; some older servers reject the field. */
  supportsUsageInStreaming: boolean;
  /** Send `reasoning_effort` for a thinking level. */
  supportsReasoningEffort: boolean;
  /**
   * Send an assistant message's thinking back as `reasoning_content`. DeepSeek's thinking
   * mode rejects a follow-up request (400) whose tool-calling assistant message lacks it.
   */
  sendReasoningContent: boolean;
  /**
   * Send a tool call's Gemini thought signature back as `extra_content.google.thought_signature`.
   * Gemini 3 rejects a follow-up request (400) whose function call lacks it.
   */
  sendThoughtSignatures: boolean;
}

/** The keys `models.json` may set, with the type each must have (checked when the file is read). */
export const COMPAT_KEYS = {
  maxTokensField: ["max_tokens", "max_completion_tokens"],
  supportsUsageInStreaming: "boolean",
  supportsReasoningEffort: "boolean",
  sendReasoningContent: "boolean",
  sendThoughtSignatures: "boolean",
} as const satisfies Record<keyof ChatCompat, "boolean" | readonly string[]>;

/** Servers recognised by provider name or base-URL host. */
type KnownServer = "openai" | "deepseek" | "gemini" | "other";

function hostOf(baseUrl: string | undefined): string {
  if (!baseUrl) return "";
  try {
    return new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/** Which server a model talks to, when its provider name or base URL says so unambiguously. */
export function knownServer(model: Pick<Model, "provider" | "baseUrl">): KnownServer {
  const host = hostOf(model.baseUrl);
  const provider = model.provider.toLowerCase();
  if (host === "api.deepseek.com" || provider === "deepseek") return "deepseek";
  if (host === "generativelanguage.googleapis.com" || provider === "google" || provider === "gemini")
    return "gemini";
  if (host === "api.openai.com" || provider === "openai") return "openai";
  return "other";
}

/** The defaults for a model before `models.json` compat applies. */
export function detectedCompat(model: Pick<Model, "provider" | "baseUrl">): ChatCompat {
  const server = knownServer(model);
  return {
    maxTokensField: server === "openai" ? "max_completion_tokens" : "max_tokens",
    supportsUsageInStreaming: true,
    supportsReasoningEffort: true,
    sendReasoningContent: server === "deepseek",
    sendThoughtSignatures: server === "gemini",
  };
}

/** Resolved compat for `model`: the detected defaults with its `compat` settings over them. */
export function chatCompat(model: Model): ChatCompat {
  const resolved = detectedCompat(model);
  const set = model.compat;
  if (!set) return resolved;
  if (set.maxTokensField === "max_tokens" || set.maxTokensField === "max_completion_tokens")
    resolved.maxTokensField = set.maxTokensField;
  for (const key of [
    "supportsUsageInStreaming",
    "supportsReasoningEffort",
    "sendReasoningContent",
    "sendThoughtSignatures",
  ] as const) {
    const value = set[key];
    if (typeof value === "boolean") resolved[key] = value;
  }
  return resolved;
}
