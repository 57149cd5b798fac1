/**
 * Backpressure on one connection's unread output, shared by every server transport.
 * Past the high-water mark, `ready()` asks streaming threads to wait until unread output
 * is back under the low-water mark, so a client that reads slowly slows the model's
 * stream down instead of being cut off. A client that takes nothing for `stallMs` while
 * output waits has stopped reading: threads are let go again (the transport's hard limit
 * then aborts that connection), so one stalled client never holds a thread that others
 * are watching.
 */

/** The marks of an {@link OutputRoom}. */
export interface OutputRoomLimits {
  highWaterBytes: number;
  lowWaterBytes: number;
  stallMs: number;
}

/** Tracks when output last moved and hands out the wait for room. */
export class OutputRoom {
  /** When output last moved (a write completed, or output started after an idle spell). */
  private progressAt = 0;
  /** The reader took nothing for `stallMs` while output waited; cleared by the next progress. */
  private stalled = false;
  private room:
    | { promise: Promise<void>; resolve: () => void; timer: ReturnType<typeof setTimeout> }
    | undefined;

  constructor(
    private readonly limits: OutputRoomLimits,
    /** Unread output now, in bytes. */
    private readonly pendingBytes: () => number,
  ) {}

  /** Undefined while there is room (or the reader stalled), else a promise that settles once there is. */
  ready(): Promise<void> | undefined {
    if (this.stalled || this.pendingBytes() <= this.limits.highWaterBytes) return undefined;
    if (this.room === undefined) {
      const { promise, resolve } = Promise.withResolvers<void>();
      this.room = { promise, resolve, timer: this.stallTimer(this.limits.stallMs) };
    }
    return this.room.promise;
  }

  /** Output starts after an idle spell: the stall clock starts now. */
  started(): void {
    this.progressAt = performance.now();
  }

  /** Some output reached the reader. */
  moved(): void {
    this.progressAt = performance.now();
    this.stalled = false;
    if (this.pendingBytes() <= this.limits.lowWaterBytes) this.release();
  }

  /** Lets every waiter go (the transport closed, or the reader caught up). */
  release(): void {
    const room = this.room;
    if (room === undefined) return;
    this.room = undefined;
    clearTimeout(room.timer);
    room.resolve();
  }

  private stallTimer(ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      if (this.room === undefined) return;
      const idle = performance.now() - this.progressAt;
      if (idle < this.limits.stallMs) {
        this.room.timer = this.stallTimer(this.limits.stallMs - idle);
        return;
      }
      this.stalled = true;
      this.release();
    }, ms);
    (timer as { unref?: () => void }).unref?.();
    return timer;
  }
}
