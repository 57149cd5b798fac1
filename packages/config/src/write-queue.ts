/**
 * One write queue per file for the whole process. The map lives on `globalThis`
 * under a registered symbol so that every copy of this module loaded in the process
 * (and every manager instance) funnels writes of a file through the same queue.
 */
import { resolve } from "node:path";

const QUEUES_KEY = Symbol.for("knightcode.config.writeQueues");

type Queues = Map<string, Promise<unknown>>;

function queues(): Queues {
  const holder = globalThis as unknown as Record<symbol, Queues | undefined>;
  let map = holder[QUEUES_KEY];
  if (map === undefined) {
    map = new Map();
    holder[QUEUES_KEY] = map;
  }
  return map;
}

/** Runs `task` after every earlier task queued for the same file has settled. */
export function enqueueFileWrite<T>(path: string, task: () => Promise<T>): Promise<T> {
  const key = resolve(path);
  const map = queues();
  const previous = map.get(key) ?? Promise.resolve();
  const run = previous.then(task, task);
  // The queue's tail must never reject, or one failure would poison later writes.
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  map.set(key, tail);
  void tail.then(() => {
    if (map.get(key) === tail) map.delete(key);
  });
  return run;
}
