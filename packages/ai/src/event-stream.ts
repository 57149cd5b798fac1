import type { AssistantMessage, AssistantMessageEvent, AssistantMessageStream } from "./types.ts";

/** The producer side of an `AssistantMessageStream`. */
export interface AssistantMessageStreamController {
  readonly stream: AssistantMessageStream;
  /** Delivers one event; a `done` or `error` event ends the stream and settles `result()`. */
  push(event: AssistantMessageEvent): void;
  /**
   * Backpressure for the producer: undefined while the consumer keeps up, else a promise
   * that settles once it has caught up. A producer awaits it before reading more of its
   * source, so a consumer that pauses (a slow client downstream) pauses the read of the
   * provider's response instead of growing this buffer.
   */
  ready(): Promise<void> | undefined;
}

/** Unread events at which `ready()` asks the producer to wait. */
export const STREAM_HIGH_WATER_EVENTS = 256;

/**
 * Creates a push-fed event stream. Events are buffered until read, so a consumer that only
 * awaits `result()` never blocks the producer (`ready()` only waits once someone iterates);
 * a second iteration sees nothing new.
 */
export function createAssistantMessageStream(): AssistantMessageStreamController {
  const buffer: AssistantMessageEvent[] = [];
  let head = 0;
  let ended = false;
  let iterating = false;
  let wake: (() => void) | undefined;
  let caughtUp: (() => void) | undefined;
  let room: Promise<void> | undefined;
  const release = () => {
    const resolve = caughtUp;
    caughtUp = undefined;
    room = undefined;
    resolve?.();
  };
  let resolveResult!: (message: AssistantMessage) => void;
  const result = new Promise<AssistantMessage>((resolve) => {
    resolveResult = resolve;
  });

  const push = (event: AssistantMessageEvent) => {
    if (ended) return;
    buffer.push(event);
    if (event.type === "done") {
      ended = true;
      resolveResult(event.message);
    } else if (event.type === "error") {
      ended = true;
      resolveResult(event.error);
    }
    const w = wake;
    wake = undefined;
    w?.();
  };

  const stream: AssistantMessageStream = {
    result: () => result,
    async *[Symbol.asyncIterator]() {
      iterating = true;
      try {
        while (true) {
          if (caughtUp && buffer.length - head < STREAM_HIGH_WATER_EVENTS / 2) release();
          if (head < buffer.length) {
            const event = buffer[head]!;
            // Drop consumed events so long streams do not pin every partial in memory.
            buffer[head++] = undefined as unknown as AssistantMessageEvent;
            if (head > 1024 && head * 2 > buffer.length) {
              buffer.splice(0, head);
              head = 0;
            }
            yield event;
            if (event.type === "done" || event.type === "error") return;
            continue;
          }
          if (ended) return;
          release();
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      } finally {
        // a consumer that stopped iterating must not hold the producer
        iterating = false;
        release();
      }
    },
  };

  const ready = (): Promise<void> | undefined => {
    if (ended || !iterating || buffer.length - head < STREAM_HIGH_WATER_EVENTS) return undefined;
    room ??= new Promise<void>((resolve) => {
      caughtUp = resolve;
    });
    return room;
  };
  return { stream, push, ready };
}
