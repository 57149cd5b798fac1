import { type Model, THINKING_LEVELS, type ThinkingLevel } from "./types.ts";

/** Levels a model offers: all six for a reasoning model, `["off"]` otherwise. */
export function defaultThinkingLevels(reasoning: boolean): ThinkingLevel[] {
  return reasoning ? [...THINKING_LEVELS] : ["off"];
}

/**
 * The level actually used: `off` for non-reasoning models, otherwise the requested level or,
 * when the model does not offer it, the nearest lower level it does offer.
 */
export function effectiveThinkingLevel(model: Model, requested: ThinkingLevel | undefined): ThinkingLevel {
  if (!model.reasoning || !requested || requested === "off") return "off";
  if (model.thinkingLevels.includes(requested)) return requested;
  for (let i = THINKING_LEVELS.indexOf(requested); i >= 0; i--) {
    const level = THINKING_LEVELS[i]!;
    if (model.thinkingLevels.includes(level)) return level;
  }
  return "off";
}

/** Anthropic extended-thinking budgets (tokens) per level. */
export const ANTHROPIC_THINKING_BUDGETS: Record<Exclude<ThinkingLevel, "off">, number> = {
  minimal: 1024,
  low: 4096,
  medium: 10_240,
  high: 20_480,
  xhigh: 32_768,
};

/**
 * Anthropic `thinking` and `max_tokens` for a level. The budget must be at least 1,024 and
 * below `max_tokens`, so it shrinks to fit and thinking is disabled when it cannot.
 */
export function anthropicThinking(
  level: ThinkingLevel,
  maxTokens: number,
): { thinking?: { type: "enabled"; budget_tokens: number }; maxTokens: number } {
  if (level === "off") return { maxTokens };
  const budget = Math.min(ANTHROPIC_THINKING_BUDGETS[level], maxTokens - 1024);
  if (budget < 1024) return { maxTokens };
  return { thinking: { type: "enabled", budget_tokens: budget }, maxTokens };
}

/** OpenAI `reasoning_effort` / `reasoning.effort` for a level; `undefined` leaves the model default. */
export function openaiReasoningEffort(
  level: ThinkingLevel,
): "minimal" | "low" | "medium" | "high" | "xhigh" | undefined {
  return level === "off" ? undefined : level;
}
