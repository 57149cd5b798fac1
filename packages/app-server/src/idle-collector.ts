/**
 * Gives memory back once the server goes quiet. JavaScriptCore collects lazily: the
 * garbage of a long streamed turn (SSE chunks, parsed events, notification lines) can
 * stay in the heap, and in RSS, long after the turn ended, while the live heap is a
 * fraction of it. One full collection after a quiet spell returns it; running it only
 * when nothing happened for a while keeps the pause away from streaming and requests.
 *
 * A very long reply is the exception: its garbage (several times the reply's size in
 * chunks, parsed events and lines) would pile up during the turn itself, so a reply of
 * 50 MiB peaked at over four times its size. One full collection per
 * `STREAM_COLLECT_CHARS` streamed holds the peak near three times the reply's size, for
 * about a sixth more CPU on such a reply; ordinary replies never reach the mark.
 */

/** Quiet time after a turn ends before the collection runs. */
export const IDLE_COLLECT_MS = 1_000;

/** Characters of streamed deltas after which a collection runs during the stream. */
export const STREAM_COLLECT_CHARS = 16 * 1024 * 1024;

/** Options for {@link createIdleCollector}; the clock, timers and collector are injectable for tests. */
export interface IdleCollectorOptions {
  idleMs?: number;
  streamCollectChars?: number;
  /** The collection; a synchronous full GC by default. */
  collect?: () => void;
  now?: () => number;
  setTimer?: (run: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

/** Schedules one collection after work ends and the server stays quiet. */
export interface IdleCollector {
  /** Something happened (a request, an event): postpones a pending collection. */
  activity(): void;
  /** Work ended (a turn completed): a collection follows after a quiet spell. */
  workEnded(): void;
  /** `chars` of a reply streamed: a collection runs each time they add up to `STREAM_COLLECT_CHARS`. */
  streamed(chars: number): void;
  /** Number of collections run, for diagnostics and tests. */
  readonly collections: number;
  dispose(): void;
}

function fullCollection(): void {
  Bun.gc(true);
}

function unrefTimer(run: () => void, ms: number): unknown {
  const timer = setTimeout(run, ms);
  // an idle collection never keeps the process alive
  timer.unref?.();
  return timer;
}

/** Creates the collector; nothing runs until `workEnded`. */
export function createIdleCollector(options: IdleCollectorOptions = {}): IdleCollector {
  const idleMs = options.idleMs ?? IDLE_COLLECT_MS;
  const streamCollectChars = options.streamCollectChars ?? STREAM_COLLECT_CHARS;
  let streamedChars = 0;
  const collect = options.collect ?? fullCollection;
  const now = options.now ?? (() => performance.now());
  const setTimer = options.setTimer ?? unrefTimer;
  const clearTimer = options.clearTimer ?? ((timer: unknown) => clearTimeout(timer as Timer));
  let lastActivity = now();
  let timer: unknown;
  let pending = false;
  let collections = 0;
  let disposed = false;

  const arm = (ms: number): void => {
    timer = setTimer(fire, ms);
  };

  function fire(): void {
    timer = undefined;
    if (disposed || !pending) return;
    const quietFor = now() - lastActivity;
    if (quietFor < idleMs) {
      arm(idleMs - quietFor);
      return;
    }
    pending = false;
    collections++;
    collect();
  }

  return {
    activity() {
      lastActivity = now();
    },
    workEnded() {
      if (disposed) return;
      lastActivity = now();
      pending = true;
      if (timer === undefined) arm(idleMs);
    },
    streamed(chars) {
      lastActivity = now();
      streamedChars += chars;
      if (disposed || streamedChars < streamCollectChars) return;
      streamedChars = 0;
      collections++;
      collect();
    },
    get collections() {
      return collections;
    },
    dispose() {
      disposed = true;
      if (timer !== undefined) clearTimer(timer);
      timer = undefined;
    },
  };
}
