/**
 * The server side of one WebSocket connection: one JSON-RPC message per text frame, with
 * the JSON-lines transport's limits. A message over 64 MiB is dropped with the same
 * `lineTooLong` error notification and the connection lives on; output the client has
 * not read is bounded (high/low-water backpressure, a stall that lets threads go, and an
 * abort at 64 MiB). Messages sent in one turn of the event loop go out corked, as one
 * write, as the stdio transport batches its lines.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  DEFAULT_MAX_LINE_BYTES,
  MAX_PENDING_OUTPUT_BYTES,
  type Message,
  type Transport,
  TransportClosedError,
} from "@knightcode/app-server-protocol";
import type { ServerWebSocket } from "bun";
import { OutputRoom, type OutputRoomLimits } from "../output-room.ts";
import { LineError, OutputOverflowError, outputRoomLimits } from "../stdio-transport.ts";

/** WebSocket close codes the server uses. */
export const CLOSE_CODES = { normal: 1000, goingAway: 1001, policy: 1008, tooBig: 1009 } as const;

/** Limits of one WebSocket connection; defaults are the JSON-lines transport's. */
export interface WebSocketLimits extends Partial<OutputRoomLimits> {
  maxMessageBytes?: number;
  maxPendingOutputBytes?: number;
}

const SENT: Promise<void> = Promise.resolve();

/** A protocol transport over one accepted Bun `ServerWebSocket`. */
export class WebSocketServerTransport implements Transport {
  onmessage?: (message: Message) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private readonly maxMessageBytes: number;
  private readonly maxPending: number;
  private readonly room: OutputRoom;
  private batch: string[] = [];
  private batchChars = 0;
  private reading = true;
  private closed = false;
  private drainWaiters: (() => void)[] = [];
  /** Pings sent since the last pong (see the listener's heartbeat). */
  missedPongs = 0;
  /** Same reason as the stdio transport's: the flush must not run in an extension call's context. */
  private readonly inOwnContext = AsyncLocalStorage.snapshot();

  constructor(
    readonly socket: ServerWebSocket<unknown>,
    limits: WebSocketLimits = {},
  ) {
    this.maxMessageBytes = limits.maxMessageBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.maxPending = limits.maxPendingOutputBytes ?? MAX_PENDING_OUTPUT_BYTES;
    this.room = new OutputRoom(outputRoomLimits(limits), () => this.unreadBytes);
  }

  /** Output handed to the socket that the client has not taken, plus what waits for this turn's flush. */
  get unreadBytes(): number {
    if (this.closed) return 0;
    return this.socket.getBufferedAmount() + this.batchChars;
  }

  async start(): Promise<void> {}

  /** Backpressure for the threads streaming to this connection (see `OutputRoom`). */
  outputReady(): Promise<void> | undefined {
    if (this.closed) return undefined;
    return this.room.ready();
  }

  /** Stops delivering input at once (shutdown); output keeps flowing. */
  stopReading(): void {
    this.reading = false;
  }

  /** A frame arrived (called by the listener). */
  receive(data: string | Buffer): void {
    if (!this.reading || this.closed) return;
    if (typeof data !== "string") {
      this.onerror?.(
        new LineError(
          "unparseable",
          "binary frames are not accepted; send text frames",
          data.byteLength,
          this.maxMessageBytes,
        ),
      );
      return;
    }
    const bytes = data.length > this.maxMessageBytes / 3 ? Buffer.byteLength(data) : data.length;
    if (bytes > this.maxMessageBytes) {
      this.onerror?.(
        new LineError(
          "oversized",
          `dropped a message of ${bytes} bytes over the ${this.maxMessageBytes}-byte limit`,
          bytes,
          this.maxMessageBytes,
        ),
      );
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch (error) {
      this.onerror?.(
        new LineError(
          "unparseable",
          `unparseable JSON message: ${String(error)}`,
          bytes,
          this.maxMessageBytes,
        ),
      );
      return;
    }
    this.onmessage?.(parsed as Message);
  }

  send(message: Message): Promise<void> {
    if (this.closed) return Promise.reject(new TransportClosedError());
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.batch.length === 0 && this.socket.getBufferedAmount() === 0) this.room.started();
    this.batch.push(json);
    this.batchChars += json.length;
    if (this.batch.length === 1) setImmediate(() => this.inOwnContext(this.flush));
    if (this.unreadBytes > this.maxPending) {
      const overflow = new OutputOverflowError(this.unreadBytes);
      this.onerror?.(overflow);
      void this.closeWith(CLOSE_CODES.policy, "output left unread");
      return Promise.reject(new TransportClosedError());
    }
    return SENT;
  }

  private readonly flush = (): void => {
    const frames = this.batch;
    this.batch = [];
    this.batchChars = 0;
    if (frames.length === 0 || this.closed) return;
    this.socket.cork(() => {
      for (const frame of frames) this.socket.send(frame);
    });
    this.afterProgress();
  };

  /** The socket's buffer drained (called by the listener). */
  drain(): void {
    this.afterProgress();
  }

  private afterProgress(): void {
    if (this.closed) return;
    this.room.moved();
    if (this.unreadBytes === 0) for (const wake of this.drainWaiters.splice(0)) wake();
  }

  /** Resolves once every sent frame left the process (or the transport closed). */
  drained(): Promise<void> {
    if (this.closed || this.unreadBytes === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  close(): Promise<void> {
    return this.closeWith(CLOSE_CODES.normal, "");
  }

  /** Closes the socket with a code (a policy violation, shutdown) and reports the close once. */
  async closeWith(code: number, reason: string): Promise<void> {
    if (this.closed) return;
    try {
      this.socket.close(code, reason);
    } catch {
      // already closed by the peer
    }
    this.peerClosed();
  }

  /** The socket is gone, from either side (called by the listener's close handler). */
  peerClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.batch = [];
    this.batchChars = 0;
    this.room.release();
    for (const wake of this.drainWaiters.splice(0)) wake();
    this.onclose?.();
  }
}
