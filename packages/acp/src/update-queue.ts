/**
 * One session's outgoing updates, strictly in order. Live notifications arrive
 * synchronously while some updates need a little async work first (a payload read);
 * chaining them keeps the order the server sent, and a prompt's answer waits for
 * `flush()` so it never overtakes an update of its own turn.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";

/** Where updates go: `session/update` to the editor. */
export type UpdateSink = (update: SessionUpdate) => Promise<void>;

/** A serial queue of updates. */
export class UpdateQueue {
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: UpdateSink,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Queues updates, or work that yields them, behind everything queued before. */
  push(
    work: SessionUpdate | SessionUpdate[] | (() => Promise<SessionUpdate | SessionUpdate[] | undefined>),
  ): void {
    this.tail = this.tail.then(async () => {
      try {
        const produced = typeof work === "function" ? await work() : work;
        if (produced === undefined) return;
        for (const update of Array.isArray(produced) ? produced : [produced]) await this.sink(update);
      } catch (error) {
        this.onError(error);
      }
    });
  }

  /** Resolves once everything queued so far has been written. */
  flush(): Promise<void> {
    return this.tail;
  }
}
