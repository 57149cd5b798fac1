/**
 * A transport that survives a dropped connection. It passes messages through to an
 * underlying transport (a WebSocket, a unix socket) and, when that closes without being
 * asked to, opens a new one, repeats the client's `initialize` handshake on its own, and
 * resumes every thread the client had subscribed with `replay: {streamId, afterSeq}`,
 * so the notifications missed in between arrive, in order, exactly once, before anything
 * live. The client above it sees one connection that paused.
 *
 * What cannot be carried over is said, not hidden: requests that were in flight when the
 * connection dropped are answered with an error (they may or may not have run), and a
 * thread whose gap the server no longer holds is reported through `onGap` with the
 * resume snapshot, for the client to redraw from. Approvals the server asked on the old
 * connection are asked again on the new one (the server keeps them pending).
 */
import type { Message, RequestId } from "./messages.ts";
import type { StreamPosition } from "./shapes.ts";
import type { Transport } from "./transport.ts";

/** Options for {@link ReconnectingTransport}. */
export interface ReconnectingTransportOptions {
  /** Opens and starts a fresh underlying transport to the same server; rejects when it cannot. */
  open(): Promise<Transport>;
  /** Waits between attempts (the last repeats); default 250 ms doubling to 4 s. */
  retryDelaysMs?: readonly number[];
  /** Attempts before giving up and closing (default 60, about four minutes). */
  maxAttempts?: number;
  /** The connection dropped; `attempt` counts from 1. */
  onReconnecting?(attempt: number, error: Error | undefined): void;
  /** A new connection is up, handshake and resumes sent. */
  onReconnected?(): void;
  /** The server no longer had a thread's gap: the `thread/resume` result to redraw from. */
  onGap?(threadId: string, result: unknown): void;
}

const OWN_ID_PREFIX = "reconnect:";
const DEFAULT_DELAYS = [250, 500, 1000, 2000, 4000];

/** A subscribed thread: where its stream stood at the last notification the client got. */
interface Followed {
  streamId: string;
  seq: number;
}

/** See the module comment. */
export class ReconnectingTransport implements Transport {
  onmessage?: (message: Message) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private inner: Transport | undefined;
  private closed = false;
  private reconnecting = false;
  private handshake: { method: string; params: unknown } | undefined;
  /** The client's requests sent and not answered, with what their answer tells about streams. */
  private readonly inFlight = new Map<RequestId, { method: string; params: unknown }>();
  private readonly followed = new Map<string, Followed>();
  /** The highest `seq` the client got per thread, subscribed or not yet known to be. */
  private readonly seen = new Map<string, number>();
  private nextOwnId = 1;
  private readonly own = new Map<string, (message: Record<string, unknown>) => void>();
  /** What the client sends while a new connection is being made, sent once it is up. */
  private held: Message[] = [];

  constructor(private readonly options: ReconnectingTransportOptions) {}

  /** Opens the first connection; a failure here is the caller's (no retries before the first success). */
  async start(): Promise<void> {
    this.attach(await this.options.open());
  }

  async send(message: Message): Promise<void> {
    const record = message as unknown as Record<string, unknown>;
    if (typeof record.method === "string" && "id" in record) {
      const id = record.id as RequestId;
      if (record.method === "initialize") this.handshake = { method: "initialize", params: record.params };
      this.inFlight.set(id, { method: record.method, params: record.params });
    }
    if (this.inner === undefined || this.reconnecting) {
      this.held.push(message);
      return;
    }
    await this.inner.send(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const inner = this.inner;
    this.inner = undefined;
    await inner?.close().catch(() => undefined);
    this.onclose?.();
  }

  private attach(inner: Transport): void {
    this.inner = inner;
    inner.onmessage = (message) => this.receive(message as unknown as Record<string, unknown>);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      if (this.inner !== inner || this.closed) return;
      this.inner = undefined;
      void this.reconnect();
    };
  }

  private receive(message: Record<string, unknown>): void {
    const id = message.id;
    if (typeof id === "string" && id.startsWith(OWN_ID_PREFIX) && !("method" in message)) {
      this.own.get(id)?.(message);
      this.own.delete(id);
      return;
    }
    if ((typeof id === "string" || typeof id === "number") && !("method" in message))
      this.answered(id, message);
    else if (typeof message.method === "string" && !("id" in message) && typeof message.seq === "number") {
      const threadId = (message.params as { threadId?: unknown } | undefined)?.threadId;
      if (typeof threadId === "string") {
        this.seen.set(threadId, message.seq);
        const followed = this.followed.get(threadId);
        if (followed !== undefined) followed.seq = message.seq;
      }
    }
    this.onmessage?.(message as unknown as Message);
  }

  /** A response to the client: learn the streams it subscribed to (and left). */
  private answered(id: RequestId, message: Record<string, unknown>): void {
    const request = this.inFlight.get(id);
    if (request === undefined) return;
    this.inFlight.delete(id);
    const result = message.result as
      | { stream?: StreamPosition; thread?: { id?: string }; status?: string }
      | undefined;
    if (result === undefined) return;
    const params = request.params as { threadId?: string } | undefined;
    if (request.method === "thread/unsubscribe" && params?.threadId !== undefined) {
      this.followed.delete(params.threadId);
      return;
    }
    const threadId = request.method === "thread/resume" ? params?.threadId : result.thread?.id;
    if (result.stream !== undefined && threadId !== undefined) {
      // live notifications sent after the subscription can arrive before the answer
      const seq = Math.max(result.stream.seq, this.seen.get(threadId) ?? 0);
      this.followed.set(threadId, { streamId: result.stream.id, seq });
    }
  }

  private async reconnect(): Promise<void> {
    this.reconnecting = true;
    // requests lost with the connection: the client must not wait for them forever
    for (const [id, request] of this.inFlight) {
      this.onmessage?.({
        id,
        error: {
          code: "internal",
          message: `the connection was lost before '${request.method}' was answered; it may or may not have run`,
        },
      } as Message);
    }
    this.inFlight.clear();
    const delays = this.options.retryDelaysMs ?? DEFAULT_DELAYS;
    const maxAttempts = this.options.maxAttempts ?? 60;
    let lastError: Error | undefined;
    for (let attempt = 1; attempt <= maxAttempts && !this.closed; attempt++) {
      this.options.onReconnecting?.(attempt, lastError);
      await new Promise((resolve) => setTimeout(resolve, delays[Math.min(attempt - 1, delays.length - 1)]));
      if (this.closed) return;
      try {
        const inner = await this.options.open();
        await this.resumeOn(inner);
        this.reconnecting = false;
        for (const message of this.held.splice(0)) await inner.send(message);
        this.options.onReconnected?.();
        return;
      } catch (error) {
        lastError = error instanceof Error ? error : new Error(String(error));
      }
    }
    await this.close();
  }

  /** Handshake and resumes on a new connection, before the client's own traffic goes on. */
  private async resumeOn(inner: Transport): Promise<void> {
    this.attach(inner);
    const request = (method: string, params: unknown): Promise<Record<string, unknown>> => {
      const id = `${OWN_ID_PREFIX}${this.nextOwnId++}`;
      return new Promise((resolve, reject) => {
        this.own.set(id, (message) => {
          if ("error" in message)
            reject(new Error(`${method} after reconnecting: ${JSON.stringify(message.error)}`));
          else resolve(message);
        });
        inner.send({ id, method, params }).catch(reject);
      });
    };
    if (this.handshake !== undefined) {
      await request("initialize", this.handshake.params);
      await inner.send({ method: "initialized", params: {} });
    }
    await Promise.all(
      [...this.followed].map(async ([threadId, followed]) => {
        const answer = await request("thread/resume", {
          threadId,
          replay: { streamId: followed.streamId, afterSeq: followed.seq },
        });
        const result = answer.result as { stream?: StreamPosition; replay?: string };
        if (result.stream !== undefined)
          this.followed.set(threadId, { streamId: result.stream.id, seq: result.stream.seq });
        if (result.replay === "gone") this.options.onGap?.(threadId, result);
      }),
    );
  }
}
