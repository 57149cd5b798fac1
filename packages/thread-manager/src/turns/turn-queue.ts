/**
 * Starting queued input: the oldest first, once the thread is free. An input that
 * cannot start (no usable model, a refused start) is dropped with an `error`
 * notification naming its queue ID, and the next one is tried.
 */
import type { Model } from "@knightcode/ai";
import { AppServerError } from "@knightcode/app-server-protocol";
import type { ThreadPort } from "../thread-port.ts";
import { toWireError } from "../wire-errors.ts";
import type { TurnEnvironment } from "./environment.ts";
import type { QueuedInput } from "./turn.ts";
import { startTurn } from "./turn-runner.ts";

/**
 * The `error` notification for a dropped input: the failure's wire code (as `turn/start`
 * would have answered), its data, and `data.queueId` naming the input.
 */
function dropped(thread: ThreadPort, input: QueuedInput, failure: AppServerError): void {
  const data =
    typeof failure.data === "object" && failure.data !== null && !Array.isArray(failure.data)
      ? (failure.data as Record<string, unknown>)
      : {};
  thread.toSubscribers({
    method: "error",
    params: {
      threadId: thread.id,
      message: `Queued input could not start: ${failure.message}`,
      code: failure.code,
      data: { ...data, queueId: input.id },
    },
  });
}

/** Starts the oldest queued input when the thread is free; inputs that cannot start are dropped with an `error`. */
export async function drainQueue(
  thread: ThreadPort,
  env: TurnEnvironment,
  resolveModel: () => Promise<Model | undefined>,
): Promise<void> {
  while (!thread.closed && !thread.busy && thread.queue.length > 0) {
    // The input stays queued (removable, dropped by an interrupt) until it actually starts.
    const model = await resolveModel();
    if (thread.closed || thread.busy || thread.queue.length === 0) return;
    const next = thread.queue.shift() as QueuedInput;
    thread.publishQueue();
    if (!model) {
      dropped(
        thread,
        next,
        new AppServerError("invalidParams", "no usable model is selected", { reason: "noModel" }),
      );
      continue;
    }
    try {
      await startTurn(thread, env, { ...next }, model);
    } catch (error) {
      dropped(thread, next, toWireError(error));
    }
    // A started turn holds admission and ends the loop; a handled or cancelled one lets the next start.
  }
}
