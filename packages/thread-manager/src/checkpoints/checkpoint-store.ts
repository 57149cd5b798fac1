/**
 * Every thread's `/undo` checkpoints, kept by the manager rather than by the loaded
 * runtime: a thread unloaded while idle (or reloaded after a client reconnects) still
 * undoes the turns this server ran for it. The git objects live in the repository; what
 * is kept here is one small stack per thread.
 */
import { TurnCheckpoints } from "./turn-checkpoints.ts";

/** The checkpoints of each thread this manager ran turns for. */
export class CheckpointStore {
  private readonly byThread = new Map<string, TurnCheckpoints>();

  /** The thread's checkpoints in `cwd`, made on first use. */
  of(threadId: string, cwd: string): TurnCheckpoints {
    let checkpoints = this.byThread.get(threadId);
    if (checkpoints === undefined || checkpoints.cwd !== cwd) {
      checkpoints?.dispose();
      checkpoints = new TurnCheckpoints(cwd);
      this.byThread.set(threadId, checkpoints);
    }
    return checkpoints;
  }

  /** A deleted thread's checkpoints go with it. */
  forget(threadId: string): void {
    this.byThread.get(threadId)?.dispose();
    this.byThread.delete(threadId);
  }

  /** Removes every private index file (shutdown). */
  disposeAll(): void {
    for (const checkpoints of this.byThread.values()) checkpoints.dispose();
    this.byThread.clear();
  }
}
