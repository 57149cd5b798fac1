/**
 * The finalized projection of a branch, kept entry-aligned: for every entry on the path,
 * the message the model would see for it after `context_edit` omissions and
 * replacements, or nothing. Cut selection, summaries and token estimates all read this
 * view, so an omitted raw entry stays stored yet affects none of them.
 */
import {
  type AgentMessage,
  type CompactionEntry,
  collectContextEdits,
  entryMessage,
  type SessionEntry,
} from "@knightcode/session-store";
import { estimateContextTokens } from "./tokens.ts";

/** A branch (root first) with each entry's projected message. */
export interface PathView {
  readonly entries: readonly SessionEntry[];
  /** Per entry index: its projected message, or undefined when it is context-invisible. */
  readonly messages: readonly (AgentMessage | undefined)[];
  /** IDs omitted by a `context_edit` on this path. */
  readonly omitted: ReadonlySet<string>;
  /** Replacement messages by entry ID, from `context_edit` entries on this path. */
  readonly replaced: ReadonlyMap<string, AgentMessage>;
  /** Index of the newest compaction entry on the path, or -1. */
  readonly latestCompactionIndex: number;
}

/** Builds the entry-aligned projection of a branch given root first. */
export function projectPath(entries: readonly SessionEntry[]): PathView {
  // The store's edit rules and entry conversion, so this view never disagrees with the
  // context the model is actually sent.
  const { omitted, replaced } = collectContextEdits(entries);
  let latestCompactionIndex = -1;
  const messages = entries.map((entry, i) => {
    if (entry.type === "compaction") latestCompactionIndex = i;
    // The newest compaction's summary heads the context instead of standing in place.
    if (omitted.has(entry.id) || entry.type === "compaction") return undefined;
    return replaced.get(entry.id) ?? entryMessage(entry);
  });
  return { entries, messages, omitted, replaced, latestCompactionIndex };
}

/** The summary message a compaction entry stands for in the model's context. */
export function compactionSummaryMessage(entry: CompactionEntry): AgentMessage {
  return {
    role: "compactionSummary",
    summary: entry.summary,
    tokensBefore: entry.tokensBefore,
    timestamp: Number.isNaN(Date.parse(entry.timestamp)) ? 0 : Date.parse(entry.timestamp),
  };
}

/**
 * Index of entry `id` among the first `before` path entries, or -1. A scan instead of an
 * ID index: it runs once or twice per plan, while indexing every ID cost more than the
 * whole rest of planning on long branches.
 */
export function indexOnPath(view: PathView, id: string, before = view.entries.length): number {
  for (let i = Math.min(before, view.entries.length) - 1; i >= 0; i--) {
    if (view.entries[i]?.id === id) return i;
  }
  return -1;
}

/**
 * Index of the first entry a compaction keeps verbatim, or undefined when it kept
 * nothing (its own ID, or an ID no longer on the path, before it).
 */
export function keptStartIndex(view: PathView, compactionIndex: number): number | undefined {
  const entry = view.entries[compactionIndex];
  if (entry?.type !== "compaction") return undefined;
  const kept = indexOnPath(view, entry.firstKeptEntryId, compactionIndex);
  return kept < 0 ? undefined : kept;
}

/** The messages the model sees for this branch: summary, kept entries, then everything after. */
export function contextMessages(view: PathView): AgentMessage[] {
  return projectedContext(view).messages;
}

/** The model's messages plus where the ones written after the latest compaction begin. */
export interface ProjectedContext {
  messages: AgentMessage[];
  /** Index in `messages` of the first message after the latest compaction (0 without one). */
  afterCompaction: number;
}

/** Like `contextMessages`, also telling which messages predate the latest compaction. */
export function projectedContext(view: PathView): ProjectedContext {
  const out: AgentMessage[] = [];
  const push = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const message = view.messages[i];
      if (message !== undefined) out.push(message);
    }
  };
  const c = view.latestCompactionIndex;
  if (c < 0) {
    push(0, view.entries.length);
    return { messages: out, afterCompaction: 0 };
  }
  const compaction = view.entries[c] as CompactionEntry;
  // The summary obeys context edits like any entry.
  if (!view.omitted.has(compaction.id))
    out.push(view.replaced.get(compaction.id) ?? compactionSummaryMessage(compaction));
  const kept = keptStartIndex(view, c);
  if (kept !== undefined) push(kept, c);
  const afterCompaction = out.length;
  push(c + 1, view.entries.length);
  return { messages: out, afterCompaction };
}

/** Context tokens of the projected branch, trusting only usage reported after the latest compaction. */
export function projectedContextTokens(view: PathView): number {
  const { messages, afterCompaction } = projectedContext(view);
  return estimateContextTokens(messages, afterCompaction).tokens;
}
