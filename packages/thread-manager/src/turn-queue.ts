/**
 * Starting queued input: the oldest first, once the thread is free. An input that
 * cannot start (no usable model, a refused start) is dropped with an `error`
 * notification naming its queue ID, and the next one is tried.
 */
import type { Model } from "@knightcode/ai";
import type { QueuedInput, ThreadRuntime } from "./thread-runtime.ts";
import { startTurn, type TurnEnvironment } from "./turn-runner.ts";

/** Starts the oldest queued input when the thread is free; inputs that cannot start are dropped with an `error`. */
export async function drainQueue(
  runtime: ThreadRuntime,
  env: TurnEnvironment,
  resolveModel: () => Promise<Model | undefined>,
): Promise<void> {
  while (!runtime.closed && !runtime.busy && runtime.queue.length > 0) {
    // The input stays queued (removable, dropped by an interrupt) until it actually starts.
    const model = await resolveModel();
    if (runtime.closed || runtime.busy || runtime.queue.length === 0) return;
    const next = runtime.queue.shift() as QueuedInput;
    runtime.publishQueue();
    if (!model) {
      runtime.toSubscribers({
        method: "error",
        params: {
          threadId: runtime.id,
          message: `Queued input could not start: no usable model is selected`,
          code: "invalidParams",
          data: { queueId: next.id },
        },
      });
      continue;
    }
    try {
      await startTurn(runtime, env, { ...next }, model);
    } catch (error) {
      runtime.toSubscribers({
        method: "error",
        params: {
          threadId: runtime.id,
          message: `Queued input could not start: ${(error as Error).message}`,
          data: { queueId: next.id },
        },
      });
    }
    // A started turn holds admission and ends the loop; a handled or cancelled one lets the next start.
  }
}
