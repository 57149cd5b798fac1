/**
 * The session tree behind `/tree`: every message entry on every branch, and moving the
 * thread's leaf so the conversation continues from another entry. Clients render the
 * tree from `parentId`; the projection (`thread/read`) then follows the new branch.
 */
import Type, { type Static } from "typebox";

const ThreadId = Type.String({ minLength: 1, maxLength: 256 });

export const ThreadTreeReadParams = Type.Object({ threadId: ThreadId });
export type ThreadTreeReadParams = Static<typeof ThreadTreeReadParams>;

/** One conversation entry of the tree. */
export const TreeEntry = Type.Object({
  id: Type.String(),
  parentId: Type.Union([Type.String(), Type.Null()]),
  /**
   * The nearest ancestor that `entries` lists, null when there is none: the edge a client
   * draws. `parentId` can name an entry the tree leaves out (a turn marker, a tool result).
   */
  treeParentId: Type.Union([Type.String(), Type.Null()]),
  /** `user`/`assistant` messages, a user `shell` command, a `compaction` or a `branchSummary`. */
  kind: Type.Union([
    Type.Literal("user"),
    Type.Literal("assistant"),
    Type.Literal("shell"),
    Type.Literal("compaction"),
    Type.Literal("branchSummary"),
  ]),
  /** The first 200 characters of its text. */
  preview: Type.String(),
  timestamp: Type.String(),
});
export type TreeEntry = Static<typeof TreeEntry>;

export const ThreadTreeReadResult = Type.Object({
  /** Message entries of every branch in file order (parents before children). */
  entries: Type.Array(TreeEntry),
  /** The current leaf (any entry type), null before the first entry. */
  leafId: Type.Union([Type.String(), Type.Null()]),
  /** The IDs of `entries` on the current branch. */
  currentBranch: Type.Array(Type.String()),
});
export type ThreadTreeReadResult = Static<typeof ThreadTreeReadResult>;

export const ThreadTreeNavigateParams = Type.Object({
  threadId: ThreadId,
  /** The entry to continue after; null continues from the very start. */
  entryId: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  /** Summarize the branch being left into a `branch_summary` entry at the new position. */
  summarize: Type.Optional(Type.Boolean()),
  /** Extra focus for that summary. */
  customInstructions: Type.Optional(Type.String({ maxLength: 4096 })),
});
export type ThreadTreeNavigateParams = Static<typeof ThreadTreeNavigateParams>;

export const ThreadTreeNavigateResult = Type.Object({
  leafId: Type.Union([Type.String(), Type.Null()]),
  /** The `branch_summary` entry written for the branch left behind. */
  summaryEntryId: Type.Optional(Type.String()),
  /** An extension (`session_before_tree`) cancelled the move; the leaf stayed. */
  cancelled: Type.Optional(Type.Boolean()),
});
export type ThreadTreeNavigateResult = Static<typeof ThreadTreeNavigateResult>;
