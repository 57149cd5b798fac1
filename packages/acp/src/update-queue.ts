/**
 * One session's outgoing updates, strictly in order. Live notifications arrive
 * synchronously while some updates need a little async work first (a payload read, a
 * resolved item); such work is chained, and updates behind it wait their turn. With
 * nothing waiting, an update goes out at once (the per-delta path).
 *
 * Text chunks are joined: the first chunk of a burst goes out at once (no added
 * latency), chunks of the same kind that follow within the same run of the event loop
 * become one chunk at its end, and any other update first sends what was joined so far.
 * A model stream hands over many deltas per network read, and an editor re-renders per
 * chunk, so this keeps both the pipe and the editor from paying per delta.
 *
 * A prompt's answer waits for `flush()`, so it never overtakes an update of its turn.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";

/** Where updates go: `session/update` to the editor; sends are written in call order. */
export type UpdateSink = (update: SessionUpdate) => Promise<void>;

type Work = SessionUpdate | SessionUpdate[] | (() => Promise<SessionUpdate | SessionUpdate[] | undefined>);

/** The kinds of text chunk that are joined. */
export type ChunkKind = "agent_message_chunk" | "agent_thought_chunk";

/** A serial queue of updates. */
export class UpdateQueue {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;
  private lastSend: Promise<void> = Promise.resolve();
  /** A chunk was sent in this run of the event loop; the next ones are joined. */
  private burst = false;
  private joined: { kind: ChunkKind; text: string } | undefined;

  constructor(
    private readonly sink: UpdateSink,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Queues one text delta. */
  pushText(kind: ChunkKind, text: string): void {
    if (this.waiting > 0) {
      this.push({ sessionUpdate: kind, content: { type: "text", text } });
      return;
    }
    if (this.joined !== undefined && this.joined.kind === kind) {
      this.joined.text += text;
      return;
    }
    this.sendJoined();
    if (this.burst) {
      this.joined = { kind, text };
      return;
    }
    this.burst = true;
    setImmediate(() => {
      this.burst = false;
      this.sendJoined();
    });
    this.deliver({ sessionUpdate: kind, content: { type: "text", text } });
  }

  /** Queues updates, or work that yields them, behind everything queued before. */
  push(work: Work): void {
    this.sendJoined();
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

  private sendJoined(): void {
    const joined = this.joined;
    if (joined === undefined) return;
    this.joined = undefined;
    this.deliver({ sessionUpdate: joined.kind, content: { type: "text", text: joined.text } });
  }

  private deliver(updates: SessionUpdate | SessionUpdate[]): void {
    for (const update of Array.isArray(updates) ? updates : [updates]) {
      this.lastSend = this.sink(update).catch(this.onError);
    }
  }

  /** Resolves once everything queued so far has been written. */
  flush(): Promise<void> {
    this.sendJoined();
    return this.tail.then(() => {
      this.sendJoined();
      return this.lastSend;
    });
  }
}
