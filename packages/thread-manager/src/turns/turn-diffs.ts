/**
 * `turn/diff/updated`: the unified diff of everything a turn changed, against the turn's
 * start. When a turn begins in a git checkout its working files are written as a tree
 * (before any tool runs); every completed tool call that reports file changes asks for a
 * new diff, and diffs are coalesced so at most one goes out per `DIFF_INTERVAL_MS`; when
 * the turn settles, a change no diff covers yet is diffed at once (without holding the
 * settlement, so the last diff may follow `turn/completed`). The start tree stays known after the turn (`thread/diff
 * {against: "turnStart"}`) until the thread's next turn begins or it unloads.
 */
import type { ServerNotification } from "@knightcode/app-server-protocol";
import type { WorkingTree } from "../checkpoints/turn-checkpoints.ts";
import { findRepository } from "../worktrees/repository.ts";
import { snapshotTree } from "../worktrees/tree-snapshot.ts";
import { diffWorkingTree } from "../worktrees/worktree-diff.ts";

/** Fewest milliseconds between two diffs of one turn. */
export const DIFF_INTERVAL_MS = 250;

/** Where a turn started, for `thread/diff {against: "turnStart"}`. */
export interface TurnStart {
  turnId: string;
  topLevel: string;
  tree: string;
}

interface Tracked {
  start: TurnStart;
  send: (notification: ServerNotification) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** A change came in that no sent diff covers yet. */
  dirty: boolean;
  running: Promise<void> | undefined;
  lastSentAt: number;
  lastDiff: string | undefined;
  ended: boolean;
}

export class TurnDiffs {
  private readonly byThread = new Map<string, Tracked>();

  /** Turn-start snapshots still being taken, by thread. */
  private readonly starting = new Map<string, Promise<void>>();

  /**
   * Snapshots the turn's start; outside a git checkout nothing is tracked. The turn need
   * not wait for it before its model request (nothing of the turn touches a file before a
   * tool runs, or a `before_agent_start` hook): `started` is what those wait for.
   * `shared` is the same tree from the turn's undo checkpoint (one walk of the files for
   * both); without it, or when it has none, the start is written here.
   */
  began(
    threadId: string,
    turnId: string,
    cwd: string,
    send: Tracked["send"],
    shared?: Promise<WorkingTree | undefined>,
  ): Promise<void> {
    const previous = this.starting.get(threadId);
    const snapshot = this.snapshot(previous, threadId, turnId, cwd, send, shared);
    this.starting.set(threadId, snapshot);
    void snapshot.finally(() => {
      if (this.starting.get(threadId) === snapshot) this.starting.delete(threadId);
    });
    return snapshot;
  }

  /** Resolves once the thread's latest turn-start snapshot is taken (or known not to be). Never rejects. */
  async started(threadId: string): Promise<void> {
    await this.starting.get(threadId);
  }

  private async snapshot(
    previous: Promise<void> | undefined,
    threadId: string,
    turnId: string,
    cwd: string,
    send: Tracked["send"],
    shared: Promise<WorkingTree | undefined> | undefined,
  ): Promise<void> {
    // one thread's snapshots land in the order their turns began
    await previous;
    this.forget(threadId);
    let topLevel: string;
    let tree: string;
    try {
      const found = await shared;
      if (found !== undefined) ({ topLevel, tree } = found);
      else {
        const repo = await findRepository(cwd);
        if (!repo) return;
        topLevel = repo.topLevel;
        tree = await snapshotTree(topLevel);
      }
    } catch (error) {
      process.stderr.write(`[thread-manager] turn start snapshot failed: ${(error as Error).message}\n`);
      return;
    }
    this.byThread.set(threadId, {
      start: { turnId, topLevel, tree },
      send,
      timer: undefined,
      dirty: false,
      running: undefined,
      lastSentAt: 0,
      lastDiff: undefined,
      ended: false,
    });
  }

  /** A tool call of the turn changed files: a diff goes out soon. */
  changed(threadId: string, turnId: string): void {
    const tracked = this.byThread.get(threadId);
    if (!tracked || tracked.ended || tracked.start.turnId !== turnId) return;
    tracked.dirty = true;
    this.schedule(threadId, tracked);
  }

  private schedule(threadId: string, tracked: Tracked): void {
    if (tracked.timer || tracked.running) return;
    const wait = Math.max(0, tracked.lastSentAt + DIFF_INTERVAL_MS - Date.now());
    tracked.timer = setTimeout(() => {
      tracked.timer = undefined;
      tracked.running = this.flush(threadId, tracked).finally(() => {
        tracked.running = undefined;
        if (tracked.dirty && !tracked.ended) this.schedule(threadId, tracked);
      });
    }, wait);
  }

  private async flush(threadId: string, tracked: Tracked): Promise<void> {
    if (!tracked.dirty) return;
    tracked.dirty = false;
    try {
      const { diff } = await diffWorkingTree(tracked.start.topLevel, tracked.start.tree);
      tracked.lastSentAt = Date.now();
      if (diff === tracked.lastDiff) return;
      tracked.lastDiff = diff;
      tracked.send({ method: "turn/diff/updated", params: { threadId, turnId: tracked.start.turnId, diff } });
    } catch (error) {
      process.stderr.write(`[thread-manager] turn diff failed: ${(error as Error).message}\n`);
    }
  }

  /** The turn is settling: the diff of its last change goes out now, if it has not. Never rejects. */
  async ending(threadId: string, turnId: string): Promise<void> {
    await this.started(threadId);
    const tracked = this.byThread.get(threadId);
    if (!tracked || tracked.start.turnId !== turnId || tracked.ended) return;
    tracked.ended = true;
    if (tracked.timer) {
      clearTimeout(tracked.timer);
      tracked.timer = undefined;
    }
    await tracked.running;
    await this.flush(threadId, tracked);
  }

  /** The latest turn's start in this thread, if it began in a git checkout. */
  lastStart(threadId: string): TurnStart | undefined {
    return this.byThread.get(threadId)?.start;
  }

  /** Drops a thread's state (its next turn, its unload). */
  forget(threadId: string): void {
    const tracked = this.byThread.get(threadId);
    if (tracked?.timer) clearTimeout(tracked.timer);
    this.byThread.delete(threadId);
  }
}
