/**
 * A typed client for the app server over any `Transport`: the method name fixes params and
 * result types, many requests may be in flight, and server errors arrive as
 * `AppServerError` with `code`, `message` and `data` exactly as sent.
 */
import { AppServerError } from "./errors.ts";
import { classifyMessage, type Message, type RequestId, type ResponseMessage } from "./messages.ts";
import type { ClientRequestMethod, ServerNotificationMethod, ServerRequestMethod } from "./method-names.ts";
import type {
  ClientRequestParams,
  ClientRequestResult,
  ServerNotificationParams,
  ServerRequestParams,
  ServerRequestResult,
} from "./method-types.ts";
import type { InitializeParams, InitializeResult } from "./methods/handshake.ts";
import type { InlineImage, PayloadRef, ThreadItem, Turn } from "./shapes.ts";
import type { Transport } from "./transport.ts";

/** Pending requests reject with this when the transport closes under them. */
export class ConnectionClosedError extends Error {
  override readonly name = "ConnectionClosedError";
  constructor(method: string) {
    super(`connection closed before '${method}' was answered`);
  }
}

/** What a notification carries besides its params: its place in its thread's stream, when it has one. */
export interface NotificationMeta {
  seq?: number;
}

type NotificationHandler = (method: string, params: unknown, meta: NotificationMeta) => void;
type RequestHandler = (params: unknown, context: { id: RequestId; signal: AbortSignal }) => unknown;

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** Base64 to bytes with `atob`, which Bun, Node and browsers all have (`Buffer` is not in browsers). */
function decodeBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const NO_META: NotificationMeta = Object.freeze({});

/** True when a value is a payload reference. */
export function isPayloadRef(value: unknown): value is PayloadRef {
  return typeof value === "object" && value !== null && (value as { type?: unknown }).type === "payloadRef";
}

/** The client side of one connection. */
export class AppServerClient {
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly notificationHandlers = new Map<string, Set<NotificationHandler>>();
  private readonly requestHandlers = new Map<string, RequestHandler>();
  private readonly incoming = new Map<RequestId, AbortController>();
  private closed = false;
  private readonly closeCallbacks: (() => void)[] = [];

  constructor(private readonly transport: Transport) {
    transport.onmessage = (message) => this.receive(message);
    transport.onclose = () => this.handleClose();
  }

  /** Starts the transport. */
  async connect(): Promise<void> {
    await this.transport.start();
  }

  /** Performs the handshake: `initialize`, then the `initialized` notification. */
  async initialize(params: InitializeParams): Promise<InitializeResult> {
    const result = await this.request("initialize", params);
    await this.notify("initialized", {});
    return result;
  }

  /** Sends a request and resolves with its typed result. */
  request<M extends ClientRequestMethod>(
    method: M,
    params: ClientRequestParams<M>,
  ): Promise<ClientRequestResult<M>> {
    if (this.closed) return Promise.reject(new ConnectionClosedError(method));
    const id = this.nextId++;
    return new Promise<ClientRequestResult<M>>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject });
      this.transport.send({ id, method, params }).catch((error: unknown) => {
        this.pending.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }

  /** Sends a notification (the client only ever sends `initialized`). */
  async notify(method: string, params: unknown): Promise<void> {
    await this.transport.send({ method, params });
  }

  /** Listens to one notification method; returns the unsubscribe function. */
  onNotification<M extends ServerNotificationMethod>(
    method: M,
    handler: (params: ServerNotificationParams<M>, meta: NotificationMeta) => void,
  ): () => void;
  /** Listens to every notification. */
  onNotification(
    method: "*",
    handler: (method: string, params: unknown, meta: NotificationMeta) => void,
  ): () => void;
  onNotification(method: string, handler: (...args: never[]) => void): () => void {
    const wrapped: NotificationHandler =
      method === "*"
        ? (handler as NotificationHandler)
        : (_method, params, meta) =>
            (handler as (params: unknown, meta: NotificationMeta) => void)(params, meta);
    let set = this.notificationHandlers.get(method);
    if (set === undefined) {
      set = new Set();
      this.notificationHandlers.set(method, set);
    }
    set.add(wrapped);
    return () => set.delete(wrapped);
  }

  /**
   * Answers a server request. Return the result, or throw an `AppServerError` to answer
   * an error. `signal` aborts when the server withdraws the request.
   */
  onRequest<M extends ServerRequestMethod>(
    method: M,
    handler: (
      params: ServerRequestParams<M>,
      context: { id: RequestId; signal: AbortSignal },
    ) => ServerRequestResult<M> | Promise<ServerRequestResult<M>>,
  ): () => void {
    this.requestHandlers.set(method, handler as RequestHandler);
    return () => this.requestHandlers.delete(method);
  }

  /** Calls once when the connection closes. */
  onClose(callback: () => void): void {
    if (this.closed) callback();
    else this.closeCallbacks.push(callback);
  }

  /** Reads a whole payload: `payload/read` until `eof`, chunks placed by byte offset. */
  async readPayload(ref: PayloadRef): Promise<Uint8Array> {
    const bytes = new Uint8Array(ref.byteLength);
    let offset = 0;
    let filled = 0;
    for (;;) {
      const chunk = await this.request("payload/read", { id: ref.id, offset });
      const data = decodeBase64(chunk.data);
      if (offset + data.length > bytes.length)
        throw new Error(`payload ${ref.id} is longer than its reference says`);
      bytes.set(data, offset);
      filled = Math.max(filled, offset + data.length);
      if (chunk.eof) break;
      if (chunk.nextOffset === undefined || chunk.nextOffset <= offset) {
        throw new Error(`payload ${ref.id}: server did not advance past offset ${offset}`);
      }
      offset = chunk.nextOffset;
    }
    if (filled !== bytes.length)
      throw new Error(`payload ${ref.id} ended at ${filled} of ${bytes.length} bytes`);
    return bytes;
  }

  /** Reads a payload holding JSON. */
  async readPayloadJson<T = unknown>(ref: PayloadRef): Promise<T> {
    return JSON.parse(new TextDecoder().decode(await this.readPayload(ref))) as T;
  }

  /** Replaces a turn reference, and references among its items, by their contents. */
  async resolveTurn(turn: Turn | PayloadRef): Promise<Turn> {
    const whole = isPayloadRef(turn) ? await this.readPayloadJson<Turn>(turn) : turn;
    if (whole.items === undefined) return whole;
    const items = await Promise.all(whole.items.map((item) => this.resolveItem(item)));
    return { ...whole, items };
  }

  /**
   * Replaces an item reference, and the references inside it (tool input/output, a user
   * message's images), by their contents.
   */
  async resolveItem(item: ThreadItem | PayloadRef): Promise<ThreadItem> {
    const whole = isPayloadRef(item) ? await this.readPayloadJson<ThreadItem>(item) : item;
    if (whole.type === "userMessage" && whole.images?.some(isPayloadRef) === true) {
      const images = await Promise.all(
        whole.images.map((image) => (isPayloadRef(image) ? this.readPayloadJson<InlineImage>(image) : image)),
      );
      return { ...whole, images };
    }
    if (whole.type !== "toolCall") return whole;
    const resolved = { ...whole };
    if (resolved.inputRef !== undefined) {
      resolved.input = await this.readPayloadJson(resolved.inputRef);
      delete resolved.inputRef;
    }
    if (resolved.outputRef !== undefined) {
      resolved.output = new TextDecoder().decode(await this.readPayload(resolved.outputRef));
      delete resolved.outputRef;
    }
    return resolved;
  }

  /** Closes the transport; pending requests reject with `ConnectionClosedError`. */
  async close(): Promise<void> {
    await this.transport.close();
    this.handleClose();
  }

  private receive(raw: Message): void {
    const classified = classifyMessage(raw);
    if (classified === null) return;
    if (classified.kind === "response") this.settle(classified.message);
    else if (classified.kind === "notification")
      this.dispatchNotification(
        classified.message.method,
        classified.message.params,
        classified.message.seq === undefined ? NO_META : { seq: classified.message.seq },
      );
    else void this.answer(classified.message.id, classified.message.method, classified.message.params);
  }

  private settle(response: ResponseMessage): void {
    if (response.id === null) return;
    const pending = this.pending.get(response.id);
    if (pending === undefined) return;
    this.pending.delete(response.id);
    if ("error" in response) pending.reject(AppServerError.fromWire(response.error));
    else pending.resolve(response.result);
  }

  private dispatchNotification(method: string, params: unknown, meta: NotificationMeta): void {
    if (method === "serverRequest/cancelled") {
      const requestId = (params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) this.incoming.get(requestId)?.abort();
    }
    for (const key of [method, "*"]) {
      for (const handler of this.notificationHandlers.get(key) ?? []) handler(method, params, meta);
    }
  }

  private async answer(id: RequestId, method: string, params: unknown): Promise<void> {
    const handler = this.requestHandlers.get(method);
    if (handler === undefined) {
      await this.sendQuietly({
        id,
        error: { code: "methodNotFound", message: `no handler for '${method}'` },
      });
      return;
    }
    const controller = new AbortController();
    this.incoming.set(id, controller);
    try {
      const result = await handler(params, { id, signal: controller.signal });
      await this.sendQuietly({ id, result });
    } catch (error) {
      const wire =
        error instanceof AppServerError
          ? error.toWire()
          : { code: "internal", message: error instanceof Error ? error.message : String(error) };
      await this.sendQuietly({ id, error: wire });
    } finally {
      this.incoming.delete(id);
    }
  }

  private async sendQuietly(message: Message): Promise<void> {
    if (this.closed) return;
    try {
      await this.transport.send(message);
    } catch {
      // The connection closed while we were answering; nobody is left to tell.
    }
  }

  private handleClose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.reject(new ConnectionClosedError(pending.method));
    }
    for (const controller of this.incoming.values()) controller.abort();
    for (const callback of this.closeCallbacks.splice(0)) callback();
  }
}
