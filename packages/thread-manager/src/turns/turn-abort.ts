/**
 * Stopping a thread's turn work. Unloading, shutdown, `turn/interrupt` and extensions all
 * stop turns, some of them before the turn machinery has loaded (there is then nothing to
 * stop), so this lives apart from `turn-operations.ts`.
 */
import type { PendingStart, Turn } from "./turn.ts";

/** The turn work of one thread: a start in its hooks, the running turn. */
export interface TurnWork {
  readonly pendingStart: PendingStart | undefined;
  readonly running: Turn | undefined;
}

/** Cancels a start in its hooks and interrupts the running turn, without waiting. */
export function abortTurns(thread: TurnWork): void {
  if (thread.pendingStart) {
    thread.pendingStart.cancelled = true;
    thread.pendingStart.controller.abort();
  }
  thread.running?.interrupt();
}

/** Resolves when the thread's running turn (if any) has settled. */
export function turnSettled(thread: TurnWork): Promise<void> {
  return thread.running?.done ?? Promise.resolve();
}
