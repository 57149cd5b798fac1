import type { AssistantMessage, AssistantMessageEvent, AssistantMessageStream } from "./types.ts";

/** The producer side of an `AssistantMessageStream`. */
export interface AssistantMessageStreamController {
  readonly stream: AssistantMessageStream;
  /** Delivers one event; a `done` or `error` event ends the stream and settles `result()`. */
  push(event: AssistantMessageEvent): void;
}

/**
 * Creates a push-fed event stream. Events are buffered until read, so a consumer that only
 * awaits `result()` never blocks the producer; a second iteration sees nothing new.
 */
export function createAssistantMessageStream(): AssistantMessageStreamController {
  const buffer: AssistantMessageEvent[] = [];
  let head = 0;
  let ended = false;
  let wake: (() => void) | undefined;
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
      while (true) {
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
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
  return { stream, push };
}
