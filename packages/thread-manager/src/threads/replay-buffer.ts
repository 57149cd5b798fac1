/**
 * A loaded thread's stream of notifications, numbered, with the latest ones kept for a
 * client that reconnects. Every notification the thread sends (to its subscribers or to
 * everyone) gets the next sequence number, whether or not anyone is subscribed right now,
 * so a client that lost its connection mid-turn can ask for exactly what it missed. The
 * buffer is bounded twice, by count and by serialized size; what falls out is gone, and
 * the client then takes the resume snapshot instead. A stream is one load of the thread in
 * one process: its random ID tells a client's old numbers from a new load's.
 */
import type { ServerNotification, StreamPosition } from "@knightcode/app-server-protocol";

/** How much of a thread's stream is kept for reconnects. */
export interface ReplayLimits {
  /** Most notifications kept. */
  maxNotifications: number;
  /** Most serialized characters kept (about bytes for the protocol's mostly ASCII JSON). */
  maxBytes: number;
}

/** The defaults: a few thousand deltas, a few MiB per loaded thread. */
export const DEFAULT_REPLAY_LIMITS: ReplayLimits = { maxNotifications: 4096, maxBytes: 8 * 1024 * 1024 };

/** One kept notification. */
export interface ReplayEntry {
  readonly seq: number;
  readonly notification: ServerNotification;
  readonly bytes: number;
}

/** The numbered, bounded stream of one loaded thread. */
export class ReplayBuffer {
  readonly streamId: string = crypto.randomUUID();
  private last = 0;
  private entries: ReplayEntry[] = [];
  private head = 0;
  private bytes = 0;

  constructor(private readonly limits: ReplayLimits = DEFAULT_REPLAY_LIMITS) {}

  /** Numbers a notification and keeps it; returns its sequence number. */
  record(notification: ServerNotification): number {
    const seq = ++this.last;
    if (this.limits.maxNotifications <= 0) return seq;
    const bytes = JSON.stringify(notification)?.length ?? 0;
    this.entries.push({ seq, notification, bytes });
    this.bytes += bytes;
    while (
      this.entries.length - this.head > this.limits.maxNotifications ||
      this.bytes > this.limits.maxBytes
    ) {
      const dropped = this.entries[this.head++];
      if (dropped === undefined) break;
      this.bytes -= dropped.bytes;
    }
    // the array is shifted in bulk, not per eviction
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    return seq;
  }

  /** The stream's ID and the last number given out. */
  position(): StreamPosition {
    return { id: this.streamId, seq: this.last };
  }

  /**
   * What came after `afterSeq` in stream `streamId`, oldest first (empty when nothing
   * did); undefined when that is not this stream, or part of the gap has fallen out.
   */
  since(streamId: string, afterSeq: number): readonly ReplayEntry[] | undefined {
    if (streamId !== this.streamId || afterSeq > this.last) return undefined;
    if (afterSeq === this.last) return [];
    const oldest = this.entries[this.head]?.seq;
    if (oldest === undefined || afterSeq + 1 < oldest) return undefined;
    return this.entries.slice(this.head + (afterSeq + 1 - oldest));
  }

  /** Kept notifications and their serialized size (diagnostics, tests). */
  stats(): { notifications: number; bytes: number } {
    return { notifications: this.entries.length - this.head, bytes: this.bytes };
  }
}

/**
 * Sends a reconnecting client the part of the stream it missed, if the buffer still has
 * all of it: "replayed" (each missed entry handed to `send`, oldest first), "gone" (the
 * client installs the resume snapshot instead), or undefined when no replay was asked.
 */
export function replayGap(
  buffer: ReplayBuffer,
  request: { streamId: string; afterSeq: number } | undefined,
  send: (entry: ReplayEntry) => void,
): "replayed" | "gone" | undefined {
  if (request === undefined) return undefined;
  const missed = buffer.since(request.streamId, request.afterSeq);
  if (missed === undefined) return "gone";
  for (const entry of missed) send(entry);
  return "replayed";
}
