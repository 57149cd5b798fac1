/**
 * The thread side of server-owned worktrees: `thread/diff`, `worktree/merge`,
 * `worktree/remove`, `worktree/list`, reopening a thread's worktree when it loads, and
 * the start-up sweep (prune, the `worktrees.keep` bound, the stale report).
 * The git work is `../worktrees/`; this module finds the thread, its worktree and its
 * turn start, and holds the thread's admission while a merge or removal runs, so neither
 * overlaps a turn (`turnInProgress`).
 */
import { existsSync } from "node:fs";
import type {
  ThreadDiffParams,
  ThreadDiffResult,
  Warning,
  WorktreeListParams,
  WorktreeListResult,
  WorktreeMergeParams,
  WorktreeMergeResult,
  WorktreeRemoveParams,
  WorktreeRemoveResult,
} from "@knightcode/app-server-protocol";
import { isSessionWorktree, type SessionFile, type SessionWorktree } from "@knightcode/session-store";
import type { TurnDiffs } from "../turns/turn-diffs.ts";
import { readOwner, type WorktreeRecord } from "../worktrees/ownership.ts";
import { requireRepository } from "../worktrees/repository.ts";
import { treeOf } from "../worktrees/tree-snapshot.ts";
import { reopenWorktree, worktreesRoot } from "../worktrees/worktree-create.ts";
import { closestRemoteCommit, diffWorkingTree } from "../worktrees/worktree-diff.ts";
import { refuse } from "../worktrees/worktree-errors.ts";
import { type ListedWorktree, listWorktrees, pruneKnownRepositories } from "../worktrees/worktree-list.ts";
import { mergeWorktree } from "../worktrees/worktree-merge.ts";
import { removeWorktree } from "../worktrees/worktree-remove.ts";
import type { ThreadRuntime } from "./thread-runtime.ts";

/** What these methods need from the manager. */
export interface WorktreeHost {
  agentDir: string;
  diffs: TurnDiffs;
  /** The loaded thread, if it is loaded. */
  loaded(threadId: string): ThreadRuntime | undefined;
  /** Whether the thread is being loaded right now. */
  loading(threadId: string): boolean;
  /** The thread's transcript, loaded or read-only; `threadNotFound` when there is none. */
  session(threadId: string): Promise<SessionFile>;
  exists(threadId: string): Promise<boolean>;
  /** The `worktrees.keep` setting (its default when unset). */
  keep(): Promise<number>;
}

/** Reopens (or recreates) a loading thread's worktree; a failure is a warning, the thread still loads. */
export async function reopenThreadWorktree(worktree: unknown): Promise<Warning[]> {
  if (!isSessionWorktree(worktree)) return [];
  try {
    const how = await reopenWorktree(recordOf(worktree));
    if (how === "present") return [];
    return [
      {
        source: "server",
        message: `The worktree ${worktree.path} was gone; ${how} from ${how === "recreated" ? `branch ${worktree.branch}` : "its snapshot"}`,
      },
    ];
  } catch (error) {
    return [
      {
        source: "server",
        message: `The worktree ${worktree.path} could not be reopened: ${(error as Error).message}`,
      },
    ];
  }
}

function recordOf(worktree: SessionWorktree, threadId?: string): WorktreeRecord {
  const owner = readOwner(worktree.path);
  return {
    ...worktree,
    createdAt: owner?.createdAt ?? new Date().toISOString(),
    ...(threadId !== undefined || owner?.threadId !== undefined
      ? { threadId: threadId ?? owner!.threadId! }
      : {}),
  };
}

export class ThreadWorktrees {
  constructor(private readonly host: WorktreeHost) {}

  private async worktreeOf(threadId: string): Promise<WorktreeRecord> {
    const session = await this.host.session(threadId);
    const worktree = session.header.worktree;
    if (!isSessionWorktree(worktree))
      throw refuse("noWorktree", `Thread ${threadId} does not work in a worktree`);
    return recordOf(worktree, threadId);
  }

  async diff(params: ThreadDiffParams): Promise<ThreadDiffResult> {
    const session = await this.host.session(params.threadId);
    const repo = await requireRepository(session.header.cwd);
    let from: string;
    if (params.against === "turnStart") {
      await this.host.diffs.started(params.threadId);
      const start = this.host.diffs.lastStart(params.threadId);
      if (!start)
        throw refuse("noTurn", `Thread ${params.threadId} has no turn start to compare with in this server`);
      from = start.tree;
    } else if (params.against === "base") {
      const worktree = session.header.worktree;
      from = await treeOf(repo.topLevel, isSessionWorktree(worktree) ? worktree.baseCommit : "HEAD");
    } else {
      from = await treeOf(repo.topLevel, await closestRemoteCommit(repo.topLevel));
    }
    return { ...(await diffWorkingTree(repo.topLevel, from)), from };
  }

  /** Runs `work` holding the loaded thread's admission, so no turn starts meanwhile. */
  private async exclusive<T>(threadId: string, reason: string, work: () => Promise<T>): Promise<T> {
    const runtime = this.host.loaded(threadId);
    if (!runtime) return work();
    runtime.admit(reason);
    try {
      return await work();
    } finally {
      runtime.release();
    }
  }

  async merge(params: WorktreeMergeParams): Promise<WorktreeMergeResult> {
    const record = await this.worktreeOf(params.threadId);
    return this.exclusive(params.threadId, "worktree/merge", () =>
      mergeWorktree(record, params.strategy, params.message),
    );
  }

  async remove(params: WorktreeRemoveParams): Promise<WorktreeRemoveResult> {
    const record = await this.worktreeOf(params.threadId);
    return this.exclusive(params.threadId, "worktree/remove", () =>
      removeWorktree(record, params.force === true),
    );
  }

  /**
   * Start-up: git's metadata of worktree folders that are gone is pruned; the clean,
   * merged worktrees beyond the newest `worktrees.keep` are removed as `worktree/remove`
   * removes them (snapshot ref first; a dirty one is refused there too), except one whose
   * thread is loaded or loading; the other stale ones (thread gone, but dirty or
   * unmerged) are only named. Each line goes to `log` (stderr).
   */
  async sweep(log: (line: string) => void): Promise<void> {
    if (!existsSync(worktreesRoot(this.host.agentDir))) return;
    for (const line of await pruneKnownRepositories(this.host.agentDir))
      log(`[worktrees] git pruned: ${line}`);
    const { keep, listed } = await this.listed();
    for (const worktree of listed) {
      if (worktree.beyondKeep && !this.inUse(worktree.threadId)) {
        await this.removeBeyondKeep(worktree, keep, log);
        continue;
      }
      if (!worktree.stale) continue;
      const why =
        worktree.threadId && !(await this.host.exists(worktree.threadId))
          ? "its thread is gone"
          : "clean and merged";
      log(
        `[worktrees] stale worktree ${worktree.path} (${why}); remove it with worktree/remove or git worktree remove`,
      );
    }
  }

  private inUse(threadId: string | undefined): boolean {
    return (
      threadId !== undefined && (this.host.loaded(threadId) !== undefined || this.host.loading(threadId))
    );
  }

  private async removeBeyondKeep(worktree: ListedWorktree, keep: number, log: (line: string) => void) {
    try {
      const removed = await removeWorktree(worktree, false);
      log(
        `[worktrees] removed ${removed.path} (clean and merged, beyond worktrees.keep ${keep}); restorable from ${removed.snapshotRef}`,
      );
    } catch (error) {
      log(`[worktrees] could not remove ${worktree.path}: ${(error as Error).message}`);
    }
  }

  /** The owned worktrees with their state, newest first, and the `keep` they were judged by. */
  private async listed(repoId?: string): Promise<{ keep: number; listed: ListedWorktree[] }> {
    const keep = await this.host.keep();
    const listed = await listWorktrees(this.host.agentDir, {
      ...(repoId !== undefined ? { repoId } : {}),
      keep,
      threadExists: (id) => this.host.exists(id),
    });
    return { keep, listed };
  }

  async list(params: WorktreeListParams): Promise<WorktreeListResult> {
    const repoId = params.cwd !== undefined ? (await requireRepository(params.cwd)).repoId : undefined;
    const { listed } = await this.listed(repoId);
    return {
      worktrees: listed.map((w) => ({
        name: w.name,
        path: w.path,
        branch: w.branch,
        repository: w.repository,
        ...(w.sourceBranch !== undefined ? { sourceBranch: w.sourceBranch } : {}),
        baseCommit: w.baseCommit,
        ...(w.threadId !== undefined ? { threadId: w.threadId } : {}),
        createdAt: w.createdAt,
        sizeBytes: w.sizeBytes,
        dirty: w.dirty,
        unmerged: w.unmerged,
        stale: w.stale,
      })),
    };
  }
}
