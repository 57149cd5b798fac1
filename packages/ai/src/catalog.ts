import { BUILT_IN_PROVIDER_ENV } from "./provider-env.ts";
import { DEMO_MODEL } from "./providers/demo.ts";
import { defaultThinkingLevels } from "./thinking.ts";
import type { Model, ModelCost } from "./types.ts";

export { BUILT_IN_PROVIDER_ENV };

function anthropic(
  id: string,
  name: string,
  cost: ModelCost,
  maxTokens: number,
  contextWindow = 200_000,
): Model {
  return {
    id,
    name,
    api: "anthropic-messages",
    provider: "anthropic",
    baseUrl: "https://api.anthropic.com",
    reasoning: true,
    input: ["text", "image"],
    cost,
    contextWindow,
    maxTokens,
    thinkingLevels: defaultThinkingLevels(true),
  };
}

function openai(
  id: string,
  name: string,
  cost: ModelCost,
  contextWindow: number,
  maxTokens: number,
  reasoning = true,
): Model {
  return {
    id,
    name,
    api: "openai-responses",
    provider: "openai",
    baseUrl: "https://api.openai.com/v1",
    reasoning,
    input: ["text", "image"],
    cost,
    contextWindow,
    maxTokens,
    // GPT-5 family effort levels; there is no "xhigh" before 5.1-codex-max, so it maps down.
    thinkingLevels: reasoning ? ["off", "minimal", "low", "medium", "high"] : ["off"],
  };
}

/**
 * Built-in models, prices in dollars per million tokens from the vendors' price lists.
 * The demo model is last so that listing order puts real models first.
 */
export const BUILT_IN_MODELS: readonly Model[] = [
  anthropic(
    "claude-opus-4-5",
    "Claude Opus 4.5",
    { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    64_000,
  ),
  anthropic(
    "claude-sonnet-4-5",
    "Claude Sonnet 4.5",
    { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    64_000,
  ),
  anthropic(
    "claude-haiku-4-5",
    "Claude Haiku 4.5",
    { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    64_000,
  ),
  anthropic(
    "claude-opus-4-1",
    "Claude Opus 4.1",
    { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    32_000,
  ),
  openai(
    "gpt-5.1",
    "GPT-5.1",
    { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
    400_000,
    128_000,
  ),
  openai(
    "gpt-5.1-codex",
    "GPT-5.1 Codex",
    { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
    400_000,
    128_000,
  ),
  openai("gpt-5", "GPT-5", { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 }, 400_000, 128_000),
  openai(
    "gpt-5-mini",
    "GPT-5 mini",
    { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 },
    400_000,
    128_000,
  ),
  openai(
    "gpt-5-nano",
    "GPT-5 nano",
    { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 },
    400_000,
    128_000,
  ),
  openai(
    "gpt-4.1",
    "GPT-4.1",
    { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    1_047_576,
    32_768,
    false,
  ),
  DEMO_MODEL,
];

/** The preferred default per provider when credentials exist. */
export const PREFERRED_DEFAULTS: readonly { provider: string; id: string }[] = [
  { provider: "anthropic", id: "claude-sonnet-4-5" },
  { provider: "openai", id: "gpt-5.1" },
];
