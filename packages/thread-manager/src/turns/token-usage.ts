/**
 * Cumulative token usage of a thread's branch: every assistant reply (including
 * attempts later omitted from the model's context: they were billed) plus the usage
 * stored on compaction and branch summaries. The sum is kept per leaf and extended
 * entry by entry (`history/branch-projection.ts`), in branch order, so it adds up exactly
 * as a pass over the whole branch does.
 */
import type { Usage } from "@knightcode/ai";
import type { TokenUsage } from "@knightcode/app-server-protocol";
import type { SessionEntry } from "@knightcode/session-store";

/** What a branch was billed, without the window and the context size. */
export type UsageTotals = Omit<TokenUsage, "contextWindow" | "contextTokens">;

export function emptyUsageTotals(): UsageTotals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
}

function add(total: UsageTotals, usage: Usage | undefined): void {
  if (!usage) return;
  total.input += usage.input || 0;
  total.output += usage.output || 0;
  total.cacheRead += usage.cacheRead || 0;
  total.cacheWrite += usage.cacheWrite || 0;
  total.cost += usage.cost?.total || 0;
}

/** Adds what one entry of the branch was billed. */
export function addEntryUsage(total: UsageTotals, entry: SessionEntry): void {
  if (entry.type === "message" && entry.message.role === "assistant") add(total, entry.message.usage);
  else if (entry.type === "compaction" || entry.type === "branch_summary") add(total, entry.usage);
}

/** The usage report of a branch's totals; `contextTokens` is left out when unknown. */
export function tokenUsage(
  totals: UsageTotals,
  contextWindow: number,
  contextTokens: number | undefined,
): TokenUsage {
  const usage: TokenUsage = { ...totals, contextWindow };
  if (contextTokens !== undefined) usage.contextTokens = contextTokens;
  return usage;
}
