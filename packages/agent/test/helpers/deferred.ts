import type { AgentEvent } from "../../src/index.ts";

/** A promise with its resolver exposed, for tests that release work at a chosen moment. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

/** Creates a deferred. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Resolves when `predicate` holds for an event seen by `subscribe`, rejecting after `ms` of real time. */
export function waitFor<E>(
  subscribe: (listener: (event: E) => void) => () => void,
  predicate: (event: E) => boolean,
  ms = 10_000,
): Promise<E> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error("timed out waiting for event"));
    }, ms);
    const off = subscribe((event) => {
      if (predicate(event)) {
        clearTimeout(timer);
        off();
        resolve(event);
      }
    });
  });
}

/** Resolves with the agent's next event matching `predicate` (rejects after `ms` of real time). */
export function nextEvent(
  agent: { subscribe(listener: (event: AgentEvent) => void): () => void },
  predicate: (event: AgentEvent) => boolean,
  ms = 10_000,
): Promise<AgentEvent> {
  return waitFor<AgentEvent>((listener) => agent.subscribe(listener), predicate, ms);
}
