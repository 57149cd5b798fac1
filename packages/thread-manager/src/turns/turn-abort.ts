/**
 * Stopping a thread's turn work. Unloading, shutdown, `turn/interrupt` and extensions all
 * stop turns, some of them before the turn machinery has loaded (there is then nothing to
 * stop), so this lives apart from `turn-operations.ts`.
 */
import { AppServerError } from "@knightcode/app-server-protocol";
import type { ThreadRuntime } from "../threads/thread-runtime.ts";

/** Cancels a start in its hooks and interrupts the running turn, without waiting. */
export function abortTurns(runtime: ThreadRuntime): void {
  if (runtime.pendingStart) {
    runtime.pendingStart.cancelled = true;
    runtime.pendingStart.controller.abort();
  }
  const running = runtime.running;
  if (!running || running.interrupted) return;
  running.interrupted = true;
  for (const reject of running.interceptedSteers) {
    reject(new AppServerError("invalidParams", "The turn was interrupted before the steer was accepted"));
  }
  running.interceptedSteers.clear();
  running.controller.abort();
  running.abortAgent?.();
}

/** Resolves when the thread's running turn (if any) has settled. */
export function turnSettled(runtime: ThreadRuntime): Promise<void> {
  return runtime.running?.done ?? Promise.resolve();
}
