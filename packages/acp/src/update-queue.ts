/**
 * One session's outgoing updates, strictly in order. Live notifications arrive
 * synchronously while some updates need a little async work first (a payload read, a
 * resolved item); such work is chained, and plain updates behind it wait their turn.
 * With nothing waiting, a plain update goes out at once (the per-delta path). A prompt's
 * answer waits for `flush()`, so it never overtakes an update of its own turn.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";

/** Where updates go: `session/update` to the editor; sends are written in call order. */
export type UpdateSink = (update: SessionUpdate) => Promise<void>;

type Work = SessionUpdate | SessionUpdate[] | (() => Promise<SessionUpdate | SessionUpdate[] | undefined>);

/** A serial queue of updates. */
export class UpdateQueue {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;
  private lastSend: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: UpdateSink,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Queues updates, or work that yields them, behind everything queued before. */
  push(work: Work): void {
    if (typeof work !== "function" && this.waiting === 0) {
      this.deliver(work);
      return;
    }
    this.waiting += 1;
    this.tail = this.tail.then(async () => {
      try {
        const produced = typeof work === "function" ? await work() : work;
        if (produced !== undefined) this.deliver(produced);
      } catch (error) {
        this.onError(error);
      } finally {
        this.waiting -= 1;
      }
    });
  }

  private deliver(updates: SessionUpdate | SessionUpdate[]): void {
    for (const update of Array.isArray(updates) ? updates : [updates]) {
      this.lastSend = this.sink(update).catch(this.onError);
    }
  }

  /** Resolves once everything queued so far has been written. */
  flush(): Promise<void> {
    return this.tail.then(() => this.lastSend);
  }
}
