import type { Cost, ModelCost, Usage } from "./types.ts";

/** Dollars for a usage record at a model's per-million-token prices; also stored on `usage.cost`. */
export function calculateCost(prices: ModelCost, usage: Usage): Cost {
  const cost: Cost = {
    input: (usage.input * prices.input) / 1_000_000,
    output: (usage.output * prices.output) / 1_000_000,
    cacheRead: (usage.cacheRead * prices.cacheRead) / 1_000_000,
    cacheWrite: (usage.cacheWrite * prices.cacheWrite) / 1_000_000,
    total: 0,
  };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  usage.cost = cost;
  return cost;
}

/** Total tokens of a usage record, falling back to the sum of its four counts. */
export function totalTokens(usage: Usage): number {
  return usage.totalTokens ?? usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}
