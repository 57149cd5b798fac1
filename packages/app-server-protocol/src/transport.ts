/** The transport seam between a connection and its bytes (or objects, in memory). */
import type { Message } from "./messages.ts";

/**
 * A bidirectional message channel. `start()` begins delivery to `onmessage`; `send`
 * resolves once the message is handed to the underlying channel; `close()` ends both
 * directions and fires `onclose` once.
 */
export interface Transport {
  start(): Promise<void>;
  send(message: Message): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: Message) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
}

/** Thrown by `send` on a closed transport. */
export class TransportClosedError extends Error {
  override readonly name = "TransportClosedError";
  constructor() {
    super("transport is closed");
  }
}
