/**
 * Server-owned git worktrees and diffs: `thread/diff`, `worktree/merge`,
 * `worktree/remove`, `worktree/list` (see docs/worktrees.md).
 */
import Type, { type Static } from "typebox";
import { PathString } from "../shapes.ts";

const ThreadId = Type.String({ minLength: 1, maxLength: 256 });

/** One changed file of a diff. */
export const DiffFile = Type.Object({
  path: Type.String(),
  kind: Type.Union([Type.Literal("add"), Type.Literal("modify"), Type.Literal("delete")]),
  additions: Type.Integer({ minimum: 0 }),
  deletions: Type.Integer({ minimum: 0 }),
  /** Named, never inlined: the diff says "Binary files ... differ". */
  binary: Type.Optional(Type.Boolean()),
});
export type DiffFile = Static<typeof DiffFile>;

export const ThreadDiffParams = Type.Object({
  threadId: ThreadId,
  /**
   * `turnStart`: since the latest turn began (this load); `base`: since the worktree's
   * base commit, or `HEAD` outside a worktree; `remote`: since the closest commit of
   * `HEAD`'s history that is on a remote.
   */
  against: Type.Union([Type.Literal("turnStart"), Type.Literal("base"), Type.Literal("remote")]),
});
export type ThreadDiffParams = Static<typeof ThreadDiffParams>;

export const ThreadDiffResult = Type.Object({
  /** Unified diff; a large one goes out as a payload reference. */
  diff: Type.String(),
  files: Type.Array(DiffFile),
  /** The diff was cut at a file boundary (files still lists every file). */
  truncated: Type.Boolean(),
  /** The commit (or tree) compared with. */
  from: Type.String(),
});
export type ThreadDiffResult = Static<typeof ThreadDiffResult>;

export const WorktreeMergeParams = Type.Object({
  threadId: ThreadId,
  strategy: Type.Union([Type.Literal("squash"), Type.Literal("merge"), Type.Literal("rebase")]),
  message: Type.Optional(Type.String({ minLength: 1, maxLength: 65536 })),
});
export type WorktreeMergeParams = Static<typeof WorktreeMergeParams>;

export const WorktreeMergeResult = Type.Object({
  /** The branch merged into. */
  target: Type.String(),
  /** The target's new tip. */
  commit: Type.String(),
  /** Commits that landed on the target (1 for squash and for a merge commit's own). */
  commits: Type.Integer({ minimum: 0 }),
  /** The worktree's uncommitted changes were committed first. */
  committedChanges: Type.Boolean(),
});
export type WorktreeMergeResult = Static<typeof WorktreeMergeResult>;

export const WorktreeRemoveParams = Type.Object({
  threadId: ThreadId,
  /** Remove a worktree with uncommitted changes too (they stay in the snapshot). */
  force: Type.Optional(Type.Boolean()),
});
export type WorktreeRemoveParams = Static<typeof WorktreeRemoveParams>;

export const WorktreeRemoveResult = Type.Object({
  /** `refs/knightcode/snapshots/<name>`: the branch's commits plus uncommitted and untracked files. */
  snapshotRef: Type.String(),
  snapshotCommit: Type.String(),
  path: Type.String(),
});
export type WorktreeRemoveResult = Static<typeof WorktreeRemoveResult>;

export const WorktreeListParams = Type.Object({
  /** Only the worktrees of the repository containing this folder. */
  cwd: Type.Optional(PathString),
});
export type WorktreeListParams = Static<typeof WorktreeListParams>;

export const WorktreeEntry = Type.Object({
  name: Type.String(),
  path: Type.String(),
  branch: Type.String(),
  repository: Type.String(),
  sourceBranch: Type.Optional(Type.String()),
  baseCommit: Type.String(),
  threadId: Type.Optional(Type.String()),
  createdAt: Type.String(),
  sizeBytes: Type.Integer({ minimum: 0 }),
  /** Uncommitted or untracked changes. */
  dirty: Type.Boolean(),
  /** Commits the source branch does not have. */
  unmerged: Type.Boolean(),
  /** Its thread is gone, or it is clean and merged beyond `worktrees.keep` (the next start-up removes those, a snapshot kept; the others only reported). */
  stale: Type.Boolean(),
});
export type WorktreeEntry = Static<typeof WorktreeEntry>;

export const WorktreeListResult = Type.Object({ worktrees: Type.Array(WorktreeEntry) });
export type WorktreeListResult = Static<typeof WorktreeListResult>;
