/**
 * A linked pair of in-memory transports: what one side sends, the other receives, as
 * objects (no serialization). Messages queue until the receiving side starts; closing
 * either side closes both.
 */
import type { Message } from "./messages.ts";
import { type Transport, TransportClosedError } from "./transport.ts";

class InMemoryTransport implements Transport {
  onmessage?: (message: Message) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  peer!: InMemoryTransport;
  private started = false;
  private closed = false;
  private queue: Message[] = [];

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const pending = this.queue;
    this.queue = [];
    for (const message of pending) this.onmessage?.(message);
  }

  async send(message: Message): Promise<void> {
    if (this.closed) throw new TransportClosedError();
    this.peer.receive(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    await this.peer.close();
    this.onclose?.();
  }

  private receive(message: Message): void {
    if (this.closed) return;
    if (!this.started) {
      this.queue.push(message);
      return;
    }
    this.onmessage?.(message);
  }
}

/** Creates two linked transports; typically `[clientSide, serverSide]`. */
export function createInMemoryTransportPair(): [Transport, Transport] {
  const a = new InMemoryTransport();
  const b = new InMemoryTransport();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
