/**
 * Cumulative token usage of a thread's branch: every assistant reply (including
 * attempts later omitted from the model's context: they were billed) plus the usage
 * stored on compaction and branch summaries.
 */
import type { Usage } from "@knightcode/ai";
import type { TokenUsage } from "@knightcode/app-server-protocol";
import type { SessionEntry } from "@knightcode/session-store";

function add(total: TokenUsage, usage: Usage | undefined): void {
  if (!usage) return;
  total.input += usage.input || 0;
  total.output += usage.output || 0;
  total.cacheRead += usage.cacheRead || 0;
  total.cacheWrite += usage.cacheWrite || 0;
  total.cost += usage.cost?.total || 0;
}

/** Sums a branch's usage; `contextTokens` is left out when unknown. */
export function cumulativeUsage(
  branch: readonly SessionEntry[],
  contextWindow: number,
  contextTokens: number | undefined,
): TokenUsage {
  const total: TokenUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextWindow };
  for (const entry of branch) {
    if (entry.type === "message" && entry.message.role === "assistant") add(total, entry.message.usage);
    else if (entry.type === "compaction" || entry.type === "branch_summary") add(total, entry.usage);
  }
  if (contextTokens !== undefined) total.contextTokens = contextTokens;
  return total;
}
