/**
 * Settling a turn: its outcome (interrupted outranks failed), the settlement hooks, the
 * durable end marker, `turn/completed` to subscribers and `thread/turn/completed` to
 * everyone, then admission is released and queued input may start.
 */
import type { AssistantMessage } from "@knightcode/ai";
import type { TurnOutcome } from "@knightcode/session-store";
import { callHook } from "../extensions/extension-hooks.ts";
import { projectTurns, turnSummary } from "../history/history-projection.ts";
import type { ErrorKind, Turn as TurnShape, Warning } from "../shapes.ts";
import type { Turn } from "./turn.ts";
import { normalizeErrorKind } from "./turn-error.ts";
import type { TurnPort } from "./turn-port.ts";

/** A turn's failure as summaries carry it. */
export interface TurnFailure {
  message: string;
  kind: ErrorKind;
}

/** Interrupted outranks failed; a reply that stopped on an error fails the turn. */
function outcomeOf(
  turn: Turn,
  lastAssistant: AssistantMessage | undefined,
  failure: TurnFailure | undefined,
): { outcome: TurnOutcome; interrupted: boolean; error: TurnFailure | undefined } {
  const interrupted = turn.interrupted || lastAssistant?.stopReason === "aborted";
  let error = failure;
  if (!error && lastAssistant?.stopReason === "error") {
    const message = lastAssistant.errorMessage ?? "The model request failed";
    error = { message, kind: normalizeErrorKind(lastAssistant.errorKind, message) };
  }
  const outcome: TurnOutcome = interrupted ? "interrupted" : error ? "failed" : "completed";
  return { outcome, interrupted, error };
}

/**
 * Ends a running turn; `agentRan` is false for command turns (no agent, so no agent hooks).
 * The caller then lets queued input start (`TurnEnvironment.settled`).
 */
export async function finishTurn(
  port: TurnPort,
  turn: Turn,
  lastAssistant: AssistantMessage | undefined,
  failure: TurnFailure | undefined,
  agentRan = true,
): Promise<void> {
  turn.beginSettling();
  const hooks = port.hooks();
  const warn = (w: Warning) => port.warn(w);
  const turnId = turn.id;
  const { outcome, interrupted, error } = outcomeOf(turn, lastAssistant, failure);
  // Settlement hooks and their deferred dispatch keep admission until they finish:
  // `turn_end` hooks still running, then `agent_end` and `agent_before_settle`.
  await turn.deferredHooksSettled();
  if (agentRan) {
    await callHook(
      hooks.agentEnd &&
        (() => hooks.agentEnd!({ turnId, aborted: interrupted, messages: turn.takeRunMessages() })),
      undefined,
      warn,
    );
    await callHook(hooks.agentBeforeSettle && (() => hooks.agentBeforeSettle!({ turnId })), undefined, warn);
  }
  turn.refuseIntercepted();
  let summary: TurnShape = { id: turnId, status: outcome, startedAt: turn.live.turnStart.startedAt };
  if (!port.closed) {
    try {
      const end = port.append({
        type: "turn_end",
        turnId,
        outcome,
        ...(outcome === "failed" && error ? { error } : {}),
        completedAt: port.clock.now(),
      });
      // The projection of the ended turn decides calls left without a result (`failed`).
      turn.live.onEntryPersisted(end);
      // The durability point runs on the thread pool: `turn/completed` and the next turn's
      // admission do not wait for the disk (an inline fsync was ~1.8 ms on a busy one).
      port.syncInBackground();
      const [projected] = projectTurns(turn.live.entries);
      if (projected) summary = projected.turn;
    } catch {
      // Ownership loss closed the thread; the saved turn will read as interrupted.
    }
  }
  turn.leave();
  const completed = turnSummary(summary);
  port.send({ method: "turn/completed", params: { threadId: port.threadId, turn: completed } });
  port.broadcast({ method: "thread/turn/completed", params: { threadId: port.threadId, turn: completed } });
  turn.clearSteering();
  if (!port.closed) port.release();
}
