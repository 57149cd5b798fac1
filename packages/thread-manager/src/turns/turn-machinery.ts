/**
 * The turn machinery as one unit: the turn environment (tools, system prompt, input
 * expansion) and the turn methods over it, with everything they import (the agent loop
 * and tools, approvals' gate, the turn runner). `lazy-turns.ts` imports this module on
 * the first request that runs a turn, so none of it loads on a thread/start's path.
 */
import type { ThreadCreation } from "../threads/thread-creation.ts";
import { createTurnEnvironment, type EnvironmentHost, type EnvironmentOptions } from "./turn-environment.ts";
import { type TurnHost, TurnOperations } from "./turn-operations.ts";

/** Builds the turn methods; the environment's `settled` starts the thread's next queued input. */
export function createTurnOperations(
  options: EnvironmentOptions,
  envHost: Omit<EnvironmentHost, "settled">,
  host: TurnHost,
  creation: ThreadCreation,
): TurnOperations {
  const env = createTurnEnvironment(options, { ...envHost, settled: (runtime) => turns.settled(runtime) });
  const turns = new TurnOperations(env, host, creation);
  return turns;
}
