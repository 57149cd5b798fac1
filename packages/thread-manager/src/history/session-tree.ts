/**
 * `thread/tree/read` and `thread/tree/navigate`: the conversation entries of every
 * branch, and moving the leaf so the next input continues from another entry. Moving
 * takes admission (never under a running turn); the move is kept in the transcript by
 * the next entry appended, which becomes the chosen entry's child. Moving to a turn's
 * start marker (the parent of its first user message) moves to the marker's parent.
 */
import type { AssistantMessage } from "@knightcode/ai";
import {
  AppServerError,
  type ThreadTreeNavigateParams,
  type ThreadTreeNavigateResult,
  type ThreadTreeReadResult,
  type TreeEntry,
} from "@knightcode/app-server-protocol";
import type { BranchSummaryEntry, SessionEntry, SessionFile } from "@knightcode/session-store";
import { callHook } from "../extensions/extension-hooks.ts";
import type { ThreadPort } from "../thread-port.ts";
import type { CompactionHooks } from "../turns/environment.ts";
import { contentText } from "./message-content.ts";

const PREVIEW_CHARS = 200;

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_CHARS ? flat.slice(0, PREVIEW_CHARS) : flat;
}

/** The tree entry an entry shows as, or undefined for entries that are not conversation. */
function treeEntry(entry: SessionEntry): Omit<TreeEntry, "treeParentId"> | undefined {
  const base = { id: entry.id, parentId: entry.parentId, timestamp: entry.timestamp };
  if (entry.type === "compaction") return { ...base, kind: "compaction", preview: preview(entry.summary) };
  if (entry.type === "branch_summary")
    return { ...base, kind: "branchSummary", preview: preview(entry.summary) };
  if (entry.type !== "message") return undefined;
  const message = entry.message;
  switch (message.role) {
    case "user":
      return { ...base, kind: "user", preview: preview(contentText(message.content)) };
    case "assistant": {
      const text = contentText((message as AssistantMessage).content.filter((c) => c.type === "text"));
      return text.trim() === "" ? undefined : { ...base, kind: "assistant", preview: preview(text) };
    }
    case "bashExecution":
      return { ...base, kind: "shell", preview: preview(`$ ${message.command}`) };
    default:
      return undefined;
  }
}

/** Every conversation entry, the leaf, and which entries the current branch holds. */
export function readSessionTree(session: SessionFile): ThreadTreeReadResult {
  const listed = session.entries
    .map(treeEntry)
    .filter((e): e is Omit<TreeEntry, "treeParentId"> => e !== undefined);
  const shown = new Set(listed.map((e) => e.id));
  const parentOf = new Map(session.entries.map((e) => [e.id, e.parentId]));
  // walks up past the entries the tree leaves out (parents come first in the file, so it ends)
  const treeParentId = (parentId: string | null): string | null => {
    let id = parentId;
    while (id !== null && !shown.has(id)) id = parentOf.get(id) ?? null;
    return id;
  };
  const entries: TreeEntry[] = listed.map((e) => ({ ...e, treeParentId: treeParentId(e.parentId) }));
  const onBranch = new Set(session.branch().map((e) => e.id));
  return {
    entries,
    leafId: session.leafId,
    currentBranch: entries.filter((e) => onBranch.has(e.id)).map((e) => e.id),
  };
}

/** pi's `session_tree` after the leaf moved (awaited, as pi does; bounded by the hook timeout). */
async function treeMoved(
  runtime: ThreadPort,
  oldLeafId: string | null,
  summaryEntry?: BranchSummaryEntry,
  fromExtension?: boolean,
): Promise<void> {
  const hook = runtime.extensions.hooks.sessionTree;
  if (!hook) return;
  await callHook(
    () =>
      hook({
        newLeafId: runtime.session.leafId,
        oldLeafId,
        ...(summaryEntry ? { summaryEntry, fromExtension: fromExtension === true } : {}),
      }),
    undefined,
    (w) => runtime.warn(w),
  );
}

/**
 * Moves a loaded thread's leaf to `entryId` (null: before the first entry). With
 * `summarize`, or an extension's `session_before_tree` answer, the branch being left is
 * summarized into a `branch_summary` entry at the new position; the hook may also
 * cancel the move. `session_tree` follows every move.
 */
export async function navigateSessionTree(
  runtime: ThreadPort,
  hooks: CompactionHooks,
  params: ThreadTreeNavigateParams,
): Promise<ThreadTreeNavigateResult> {
  runtime.admit("tree");
  try {
    const entry = params.entryId === null ? undefined : runtime.session.getEntry(params.entryId);
    if (params.entryId !== null && entry === undefined) {
      throw new AppServerError("invalidParams", `Thread ${runtime.id} has no entry ${params.entryId}`);
    }
    // A turn's user message is the child of its `turn_start` marker: continuing "after the
    // marker" would leave a turn opened and never ended, read back as an interrupted one.
    const targetId = entry?.type === "turn_start" ? entry.parentId : params.entryId;
    const outcome =
      targetId !== null && hooks.branchSummary !== undefined
        ? await hooks.branchSummary(
            runtime,
            {
              targetId,
              summarize: params.summarize === true,
              ...(params.customInstructions !== undefined
                ? { customInstructions: params.customInstructions }
                : {}),
            },
            new AbortController().signal,
          )
        : ({ status: "skipped" } as const);
    if (outcome.status === "cancelled") return { leafId: runtime.session.leafId, cancelled: true };
    if (outcome.status === "failed") {
      throw new AppServerError("internal", `The branch summary failed: ${outcome.errorMessage}`);
    }
    const oldLeafId = runtime.session.leafId;
    runtime.session.setLeaf(targetId);
    if (outcome.status === "summarized") {
      const { draft } = outcome;
      const entry = runtime.append({
        type: "branch_summary",
        summary: draft.summary,
        fromId: draft.fromId,
        ...(draft.details !== undefined ? { details: draft.details } : {}),
        ...(draft.fromHook ? { fromHook: true } : {}),
        ...(draft.usage ? { usage: draft.usage } : {}),
      });
      runtime.sync();
      await treeMoved(runtime, oldLeafId, entry as BranchSummaryEntry, outcome.fromExtension);
      return { leafId: runtime.session.leafId, summaryEntryId: entry.id };
    }
    await treeMoved(runtime, oldLeafId);
    return { leafId: runtime.session.leafId };
  } finally {
    if (!runtime.closed) runtime.release();
  }
}
