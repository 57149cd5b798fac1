/**
 * Settling a turn: its outcome (interrupted outranks failed), the settlement hooks, the
 * durable end marker, `turn/completed` to subscribers and `thread/turn/completed` to
 * everyone, then admission is released and queued input may start.
 */
import type { AssistantMessage } from "@knightcode/ai";
import { AppServerError } from "@knightcode/app-server-protocol";
import type { TurnOutcome } from "@knightcode/session-store";
import { callHook } from "../extensions/extension-hooks.ts";
import { projectTurns, turnSummary } from "../history/history-projection.ts";
import type { ErrorKind, Turn } from "../shapes.ts";
import type { RunningTurn, ThreadRuntime } from "../threads/thread-runtime.ts";
import { normalizeErrorKind } from "./turn-error.ts";
import type { TurnEnvironment } from "./turn-runner.ts";

/** A turn's failure as summaries carry it. */
export interface TurnFailure {
  message: string;
  kind: ErrorKind;
}

/** Resolves once every deferred hook of the turn (`turn_end`), including ones dispatched meanwhile, has finished. */
export async function deferredHooksSettled(running: RunningTurn): Promise<void> {
  while (running.deferredHooks.size > 0) await Promise.all([...running.deferredHooks]);
}

/** Ends a running turn; `agentRan` is false for command turns (no agent, so no agent hooks). */
export async function finishTurn(
  runtime: ThreadRuntime,
  env: TurnEnvironment,
  running: RunningTurn,
  lastAssistant: AssistantMessage | undefined,
  failure: TurnFailure | undefined,
  agentRan = true,
): Promise<void> {
  running.settling = true;
  running.live.end();
  const hooks = runtime.extensions.hooks;
  const warn = (w: Parameters<ThreadRuntime["warn"]>[0]) => runtime.warn(w);
  const turnId = running.live.id;
  const interrupted = running.interrupted || lastAssistant?.stopReason === "aborted";
  let outcome: TurnOutcome = "completed";
  let error = failure;
  if (!error && lastAssistant?.stopReason === "error") {
    const message = lastAssistant.errorMessage ?? "The model request failed";
    error = { message, kind: normalizeErrorKind(lastAssistant.errorKind, message) };
  }
  // Interrupted outcomes take precedence over failures.
  if (interrupted) outcome = "interrupted";
  else if (error) outcome = "failed";
  // Settlement hooks and their deferred dispatch keep admission until they finish:
  // `turn_end` hooks still running, then `agent_end` and `agent_before_settle`.
  await deferredHooksSettled(running);
  if (agentRan) {
    await callHook(
      hooks.agentEnd && (() => hooks.agentEnd!({ turnId, aborted: interrupted })),
      undefined,
      warn,
    );
    await callHook(hooks.agentBeforeSettle && (() => hooks.agentBeforeSettle!({ turnId })), undefined, warn);
  }
  for (const reject of running.interceptedSteers) {
    reject(new AppServerError("invalidParams", "The turn ended before the steer was accepted"));
  }
  running.interceptedSteers.clear();
  let turn: Turn = { id: turnId, status: outcome, startedAt: running.live.turnStart.startedAt };
  if (!runtime.closed) {
    try {
      const end = runtime.append({
        type: "turn_end",
        turnId,
        outcome,
        ...(outcome === "failed" && error ? { error } : {}),
        completedAt: runtime.host.clock.now(),
      });
      // The projection of the ended turn decides calls left without a result (`failed`).
      running.live.onEntryPersisted(end);
      runtime.sync();
      const [projected] = projectTurns(running.live.entries);
      if (projected) turn = projected.turn;
    } catch {
      // Ownership loss closed the thread; the saved turn will read as interrupted.
    }
  }
  runtime.running = undefined;
  const summary = turnSummary(turn);
  runtime.toSubscribers({ method: "turn/completed", params: { threadId: runtime.id, turn: summary } });
  runtime.toEveryone({ method: "thread/turn/completed", params: { threadId: runtime.id, turn: summary } });
  if (running.steering.length > 0) {
    running.steering = [];
    runtime.publishQueue();
  }
  if (!runtime.closed) runtime.release();
  env.settled(runtime);
}
