/**
 * JSON lines over a byte stream pair, such as a spawned `knightcode app-server`'s stdout
 * and stdin. Used by clients; the server's stdio transport adds its own limits on top.
 */
import { DEFAULT_MAX_LINE_BYTES, encodeLine, LineDecoder } from "./jsonl.ts";
import type { Message } from "./messages.ts";
import { type Transport, TransportClosedError } from "./transport.ts";

/**
 * Where bytes go: a Bun `FileSink` (`Bun.spawn`'s `proc.stdin`), a Node writable
 * (`node:child_process`'s `child.stdin`, under Node or Bun), or anything with `write`.
 * `flush` is called only when it is a function: under Bun a `node:child_process` child's
 * stdin has a `flush` property that is `false`.
 */
export interface ByteSink {
  write(data: string | Uint8Array): unknown;
  flush?: (() => unknown) | boolean;
  end?(): unknown;
}

export interface StreamTransportOptions {
  readable: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
  writable: ByteSink;
  maxLineBytes?: number;
}

/** A transport over a byte stream pair. Unparseable lines are reported to `onerror` and skipped. */
export class StreamTransport implements Transport {
  onmessage?: (message: Message) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private closed = false;
  private readonly decoder: LineDecoder;

  constructor(private readonly options: StreamTransportOptions) {
    this.decoder = new LineDecoder(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  }

  async start(): Promise<void> {
    void this.pump();
  }

  async send(message: Message): Promise<void> {
    if (this.closed) throw new TransportClosedError();
    const { writable } = this.options;
    writable.write(encodeLine(message));
    if (typeof writable.flush === "function") writable.flush();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      this.options.writable.end?.();
    } catch {
      // The peer may already be gone; closing is best effort by definition.
    }
    this.onclose?.();
  }

  private async pump(): Promise<void> {
    try {
      for await (const chunk of this.options.readable as AsyncIterable<Uint8Array>) {
        if (this.closed) break;
        this.deliver(this.decoder.push(chunk));
      }
      this.deliver(this.decoder.end());
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
    await this.close();
  }

  private deliver(events: ReturnType<LineDecoder["push"]>): void {
    for (const event of events) {
      if (event.type === "oversized") {
        this.onerror?.(new Error(`dropped a line of ${event.bytes} bytes over the line limit`));
        continue;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(event.text);
      } catch {
        this.onerror?.(new Error(`unparseable line: ${event.text.slice(0, 200)}`));
        continue;
      }
      this.onmessage?.(parsed as Message);
    }
  }
}
