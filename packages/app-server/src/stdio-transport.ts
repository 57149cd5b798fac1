/**
 * The server side of JSON lines over a byte stream pair (stdin/stdout in production,
 * injected streams in tests). Framing comes from the protocol's `LineDecoder`; this
 * transport adds the server's limits: an oversized line is reported and dropped while
 * the connection lives on, and output the peer has not read is bounded, because a
 * client that stops reading must not grow the server's memory without limit.
 *
 * Two marks govern unread output. Past `OUTPUT_HIGH_WATER_BYTES`, `outputReady()` asks
 * streaming threads to wait until it is back under `OUTPUT_LOW_WATER_BYTES`, so a client
 * that reads slowly slows the model's stream down instead of being cut off. A client that
 * takes nothing for `OUTPUT_STALL_MS` while output waits has stopped reading: threads are
 * let go again, and `MAX_PENDING_OUTPUT_BYTES` aborts the connection.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  DEFAULT_MAX_LINE_BYTES,
  LineDecoder,
  MAX_PENDING_OUTPUT_BYTES,
  type Message,
  type Transport,
  TransportClosedError,
} from "@knightcode/app-server-protocol";
import { OutputRoom, type OutputRoomLimits } from "./output-room.ts";
import { logLine } from "./stderr-log.ts";

/** Unread output, in bytes, at which the connection is aborted. */
export { MAX_PENDING_OUTPUT_BYTES };

/** Unread output at which streaming threads are asked to wait. */
export const OUTPUT_HIGH_WATER_BYTES = 8 * 1024 * 1024;
/** Unread output under which waiting threads resume. */
export const OUTPUT_LOW_WATER_BYTES = 2 * 1024 * 1024;
/** Waiting output that moves no byte for this long marks a client that stopped reading. */
export const OUTPUT_STALL_MS = 3_000;

/** A transport's output marks: those it was given, the defaults above for the rest. */
export function outputRoomLimits(given: Partial<OutputRoomLimits>): OutputRoomLimits {
  return {
    highWaterBytes: given.highWaterBytes ?? OUTPUT_HIGH_WATER_BYTES,
    lowWaterBytes: given.lowWaterBytes ?? OUTPUT_LOW_WATER_BYTES,
    stallMs: given.stallMs ?? OUTPUT_STALL_MS,
  };
}

/** A byte source: a Node readable (process.stdin) or any async iterable of chunks. */
export type ByteSource = AsyncIterable<Uint8Array | string> & {
  pause?: () => unknown;
  destroy?: () => unknown;
};

/** A byte sink with a completion callback per write (Node `Writable` semantics). */
export interface ByteSink {
  write(chunk: string, callback: (error?: Error | null) => void): unknown;
  end?(): unknown;
  on?(event: "error", listener: (error: Error) => void): unknown;
}

/** Reported to `onerror` for a line that could not be used; the connection answers it. */
export class LineError extends Error {
  constructor(
    readonly kind: "oversized" | "unparseable",
    message: string,
    readonly bytes: number,
    readonly limitBytes: number,
  ) {
    super(message);
    this.name = "LineError";
  }
}

/** Reported to `onerror` when the peer left too much output unread; the transport then closes. */
export class OutputOverflowError extends Error {
  constructor(readonly pendingBytes: number) {
    super(`aborting connection: ${pendingBytes} bytes of output left unread`);
    this.name = "OutputOverflowError";
  }
}

/** What `send` returns when the line is queued: one settled promise, not one per notification. */
const SENT: Promise<void> = Promise.resolve();

/**
 * Options for {@link StdioServerTransport}; the output marks default to
 * {@link OUTPUT_HIGH_WATER_BYTES}, {@link OUTPUT_LOW_WATER_BYTES} and {@link OUTPUT_STALL_MS}.
 */
export interface StdioServerTransportOptions extends Partial<OutputRoomLimits> {
  input: ByteSource;
  output: ByteSink;
  maxLineBytes?: number;
  maxPendingOutputBytes?: number;
}

/** JSON lines on injected streams with the server's input and output limits. */
export class StdioServerTransport implements Transport {
  onmessage?: (message: Message) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Called when unread output aborts the connection, before it closes (the host shuts down). */
  onOverflow?: (error: OutputOverflowError) => void;

  private readonly decoder: LineDecoder;
  private readonly maxPending: number;
  private readonly maxLineBytes: number;
  private pendingBytes = 0;
  private readonly room: OutputRoom;
  private reading = true;
  private closed = false;
  private drainWaiters: (() => void)[] = [];
  private batch: string[] = [];
  private batchBytes = 0;
  /**
   * Runs the flush in the transport's own async context, not in whatever context sent the
   * batch's first line: a line sent from inside an extension call would otherwise carry
   * that call's context into the write, and the extensions' stdout guard would take the
   * protocol's output for the extension's.
   */
  private readonly inOwnContext = AsyncLocalStorage.snapshot();

  constructor(private readonly options: StdioServerTransportOptions) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.decoder = new LineDecoder(this.maxLineBytes);
    this.maxPending = options.maxPendingOutputBytes ?? MAX_PENDING_OUTPUT_BYTES;
    this.room = new OutputRoom(outputRoomLimits(options), () => this.pendingBytes);
    // a Node stream reports a vanished reader as an 'error' event; unhandled, it would be fatal
    options.output.on?.("error", (error: Error) => this.peerGone(error));
  }

  /** Bytes handed to the output that it has not yet flushed. */
  get unflushedBytes(): number {
    return this.pendingBytes;
  }

  /**
   * Backpressure for whoever produces this connection's output: undefined while unread
   * output is under the high-water mark (or the reader has stalled, or the transport is
   * closed), else a promise that settles once it is back under the low-water mark, the
   * reader stalls, or the transport closes.
   */
  outputReady(): Promise<void> | undefined {
    if (this.closed) return undefined;
    return this.room.ready();
  }

  async start(): Promise<void> {
    void this.pump();
  }

  /** Stops delivering input at once (shutdown); output keeps flowing. */
  stopReading(): void {
    this.reading = false;
    this.options.input.pause?.();
  }

  send(message: Message): Promise<void> {
    if (this.closed) return Promise.reject(new TransportClosedError());
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch (error) {
      return Promise.reject(error);
    }
    // measured once: the batch's byte count is the sum of its lines'
    const bytes = Buffer.byteLength(json) + 1;
    if (this.pendingBytes === 0) this.room.started();
    this.pendingBytes += bytes;
    // lines sent before the event loop turns go out as one write: a streaming turn sends
    // thousands of small notifications per read of the model's response (each event a few
    // microtasks apart), and a write per line costs a syscall each. The newline is its own
    // element of the batch: appending it to the line would copy every line once more.
    this.batch.push(json, "\n");
    this.batchBytes += bytes;
    if (this.batch.length === 2) setImmediate(() => this.inOwnContext(this.flush));
    if (this.pendingBytes > this.maxPending) {
      const overflow = new OutputOverflowError(this.pendingBytes);
      this.onerror?.(overflow);
      this.onOverflow?.(overflow);
      return this.close();
    }
    return SENT;
  }

  private readonly flush = (): void => {
    const lines = this.batch;
    const bytes = this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
    if (lines.length === 0 || this.closed) return;
    const chunk = lines.join("");
    try {
      this.options.output.write(chunk, (error) => {
        if (error) this.peerGone(error);
        this.pendingBytes -= bytes;
        this.room.moved();
        if (this.pendingBytes === 0) for (const wake of this.drainWaiters.splice(0)) wake();
      });
    } catch (error) {
      this.peerGone(error);
    }
  };

  /** The reader of our output went away (EPIPE): this connection is over, the process is not. */
  private peerGone(error: unknown): void {
    if (this.closed) return;
    this.onerror?.(
      new Error(`output closed by the peer: ${error instanceof Error ? error.message : String(error)}`),
    );
    void this.close();
  }

  /** Resolves once every written byte is flushed (or the transport closed). */
  drained(): Promise<void> {
    if (this.pendingBytes === 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.room.release();
    for (const wake of this.drainWaiters.splice(0)) wake();
    try {
      this.options.output.end?.();
    } catch (error) {
      logLine(`knightcode: closing output failed: ${String(error)}\n`);
    }
    this.onclose?.();
  }

  private async pump(): Promise<void> {
    const encoder = new TextEncoder();
    try {
      for await (const chunk of this.options.input) {
        if (!this.reading) break;
        // after an abort, input is still drained so that EOF can end the process
        if (this.closed) continue;
        const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
        for (const event of this.decoder.push(bytes)) {
          if (!this.reading || this.closed) break;
          this.deliver(event);
        }
      }
      if (this.reading && !this.closed) for (const event of this.decoder.end()) this.deliver(event);
    } catch (error) {
      if (!this.closed) this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
    if (!this.reading) return;
    // the owner may keep output open to answer accepted requests (stdin EOF shuts down)
    if (this.onInputEnded !== undefined) this.onInputEnded();
    else await this.close();
  }

  /** Called at end of input; without it the transport closes itself. */
  onInputEnded?: () => void;

  private deliver(event: ReturnType<LineDecoder["push"]>[number]): void {
    if (event.type === "oversized") {
      this.onerror?.(
        new LineError(
          "oversized",
          `dropped a line of ${event.bytes} bytes over the ${this.maxLineBytes}-byte limit`,
          event.bytes,
          this.maxLineBytes,
        ),
      );
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(event.text);
    } catch (error) {
      this.onerror?.(
        new LineError(
          "unparseable",
          `unparseable JSON line: ${String(error)}`,
          event.text.length,
          this.maxLineBytes,
        ),
      );
      return;
    }
    this.onmessage?.(parsed as Message);
  }
}
