/**
 * What every turn asks of the current branch twice or more: the model's messages (the
 * agent's context) and the context-size estimate (the threshold check before the prompt,
 * the usage report after each reply). Both used to be projected from the whole branch on
 * every ask; on a long thread that grew with the history (0.1–0.2 ms each at 150 turns).
 * This keeps them for the leaf they were made at and, when the leaf has only moved on by
 * appends that change nothing before them, extends them by the new entries. Anything else
 * (a compaction, a context edit, an edit naming a new entry, a move of the leaf to another
 * branch) projects the branch again, as before, with the same functions.
 */
import type { Message } from "@knightcode/ai";
import { projectedContext, projectPath } from "@knightcode/compaction/projection";
import {
  estimateContextTokens,
  estimateMessageTokens,
  hasReliableUsage,
  usageContextTokens,
} from "@knightcode/compaction/tokens";
import {
  buildSessionContext,
  entryMessage,
  type SessionEntry,
  type SessionFile,
  toModelMessages,
} from "@knightcode/session-store";
import { addEntryUsage, emptyUsageTotals, type UsageTotals } from "../turns/token-usage.ts";

/** At most this many appends since the last ask are followed back before projecting afresh. */
const MAX_EXTENSION = 64;

interface Projection {
  leafId: string | null;
  /** The model's messages of the branch (`toModelMessages` of the session context). */
  messages: Message[];
  /** The last reliable usage after the latest compaction, and the estimate of what follows it. */
  usageTokens: number;
  trailingTokens: number;
  hasUsage: boolean;
  compacted: boolean;
  /** What the branch was billed (every reply, omitted or not, and summaries' usage). */
  billed: UsageTotals;
  /** Entry IDs a context edit on the path omits or replaces: such an entry is never appended cheaply. */
  edited: ReadonlySet<string>;
}

/** Entry kinds that change the projection of what came before them. */
function reshapes(entry: SessionEntry): boolean {
  return entry.type === "compaction" || entry.type === "context_edit";
}

/** The current branch's messages and context size for one session, kept per leaf. */
export class BranchProjection {
  private state: Projection | undefined;

  constructor(private readonly session: SessionFile) {}

  /** The model's view of the current branch (a fresh array each time). */
  messages(): Message[] {
    return this.current().messages.slice();
  }

  /**
   * The context estimate `branchContextTokens` gives (last successful usage plus what
   * follows, usage before the latest compaction ignored), and whether a reply has
   * reported usage since that compaction (before one does, the size is unknown).
   */
  contextSize(): { tokens: number; known: boolean } {
    const state = this.current();
    return { tokens: state.usageTokens + state.trailingTokens, known: !state.compacted || state.hasUsage };
  }

  /** The branch's cumulative usage (a copy). */
  usageTotals(): UsageTotals {
    return { ...this.current().billed };
  }

  private current(): Projection {
    const leafId = this.session.leafId;
    const state = this.state;
    if (state?.leafId === leafId) return state;
    const appended = state && this.appendedSince(state, leafId);
    this.state = appended ? extend(state, appended) : project(this.session);
    return this.state;
  }

  /** The entries from the cached leaf (exclusive) to `leafId`, oldest first, when only cheap appends lie between. */
  private appendedSince(state: Projection, leafId: string | null): SessionEntry[] | undefined {
    const entries: SessionEntry[] = [];
    let id = leafId;
    while (id !== state.leafId) {
      if (id === null || entries.length >= MAX_EXTENSION) return undefined;
      const entry = this.session.getEntry(id);
      if (!entry || reshapes(entry) || state.edited.has(entry.id)) return undefined;
      entries.push(entry);
      id = entry.parentId;
    }
    return entries.reverse();
  }
}

function project(session: SessionFile): Projection {
  const branch = session.branch();
  const view = projectPath(branch);
  const { messages, afterCompaction } = projectedContext(view);
  const estimate = estimateContextTokens(messages, afterCompaction);
  const billed = emptyUsageTotals();
  for (const entry of branch) addEntryUsage(billed, entry);
  return {
    leafId: session.leafId,
    messages: toModelMessages(buildSessionContext(branch, session.header).messages),
    usageTokens: estimate.usageTokens,
    trailingTokens: estimate.trailingTokens,
    hasUsage: estimate.lastUsageIndex !== undefined,
    compacted: view.latestCompactionIndex >= 0,
    billed,
    edited: new Set([...view.omitted, ...view.replaced.keys()]),
  };
}

/** The projection after `entries` were appended to its leaf, none of which reshapes what came before. */
function extend(state: Projection, entries: readonly SessionEntry[]): Projection {
  // the old state is dropped, and its array was only ever handed out as copies
  const next: Projection = { ...state, billed: { ...state.billed } };
  for (const entry of entries) {
    next.leafId = entry.id;
    addEntryUsage(next.billed, entry);
    const message = entryMessage(entry);
    if (!message) continue;
    next.messages.push(...toModelMessages([message]));
    if (hasReliableUsage(message)) {
      next.usageTokens = usageContextTokens(message.usage);
      next.trailingTokens = 0;
      next.hasUsage = true;
    } else {
      next.trailingTokens += estimateMessageTokens(message);
    }
  }
  return next;
}
