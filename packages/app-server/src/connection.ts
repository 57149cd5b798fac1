/**
 * One protocol connection: the handshake, per-connection notification opt-outs,
 * requests it accepted (so shutdown can answer them), and the server requests it has
 * outstanding. Routing decisions live in the server; this class only keeps the
 * connection's state and speaks the message shapes.
 */
import {
  AppServerError,
  classifyMessage,
  ERROR_CODES,
  type InitializeParams,
  MAX_LINE_BYTES,
  type Message,
  type RequestId,
  type ServerNotification,
  type Transport,
  TransportClosedError,
  validateRequestParams,
} from "@knightcode/app-server-protocol";
import { ConfigError } from "@knightcode/config";
import { SessionStoreError } from "@knightcode/session-store";
import { FileSearchError } from "./file-search.ts";
import { logLine } from "./stderr-log.ts";

/**
 * A result with something to send right after it on the same connection (in order,
 * behind the response): `dispatch` may resolve with one instead of a bare result.
 */
export class FollowedResult {
  constructor(
    readonly result: unknown,
    readonly after: () => void,
  ) {}
}

/** What the connection asks of the server that owns it. */
export interface ConnectionHost {
  /** Handles a validated, initialized request; resolves with the result to send (or a {@link FollowedResult}). */
  dispatch(connection: Connection, method: string, params: unknown, id: RequestId): Promise<unknown>;
  initializeResult(): unknown;
  /** What the `initialize` answer waits for (see `AppServerOptions.ready`). */
  ready(): Promise<unknown> | undefined;
  isShuttingDown(): boolean;
  connectionClosed(connection: Connection): void;
  /** See {@link MAX_REQUESTS_IN_FLIGHT}. */
  maxRequestsInFlight?: number;
}

interface OutstandingRequest {
  threadId: string | undefined;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

type State = "new" | "initializing" | "ready" | "closed";

/**
 * Accepted, unanswered requests one connection may have; past it, requests are answered
 * the retryable `overloaded` at once instead of queueing without bound.
 */
export const MAX_REQUESTS_IN_FLIGHT = 4096;
/** What `overloaded` asks the client to wait before trying again. */
export const OVERLOAD_RETRY_AFTER_MS = 1000;

/** A client connection over one transport. */
export class Connection {
  private state: State = "new";
  private optOut = new Set<string>();
  /** Declared `capabilities.extensionDialogs`: extension dialogs may be routed here. */
  showsExtensionDialogs = false;
  private readonly accepted = new Map<RequestId, { method: string }>();
  private readonly outstanding = new Map<RequestId, OutstandingRequest>();
  private nextServerRequestId = 1;
  private settledWaiters: (() => void)[] = [];
  /** Messages that arrived while the `initialize` answer waited for the server to be ready, in order. */
  private held: unknown[] | undefined;

  constructor(
    readonly id: string,
    readonly clientKind: "desktop" | "terminal",
    readonly transport: Transport,
    private readonly host: ConnectionHost,
    /** See `ConnectOptions.reconnectable`. */
    readonly reconnectable = false,
  ) {
    transport.onmessage = (message) => this.receive(message);
    transport.onerror = (error) => this.transportError(error);
    transport.onclose = () => this.closed();
  }

  /** True once `initialized` arrived: the connection receives notifications from then on. */
  get ready(): boolean {
    return this.state === "ready";
  }

  get isClosed(): boolean {
    return this.state === "closed";
  }

  /** Number of accepted requests not yet answered. */
  get pendingRequests(): number {
    return this.accepted.size;
  }

  /**
   * Sends a notification unless this connection opted out of it or is not initialized;
   * `seq` is its place in its thread's stream (sent as the message's top-level `seq`).
   */
  notify(notification: ServerNotification, seq?: number): void {
    if (this.state !== "ready" || this.optOut.has(notification.method)) return;
    this.send(
      seq === undefined ? notification : { method: notification.method, params: notification.params, seq },
    );
  }

  /** Sends a notification even before the handshake completes (`error` for a bad line); opt-outs still apply. */
  notifyConnection(method: string, params: unknown): void {
    if (this.state === "closed" || this.optOut.has(method)) return;
    this.send({ method, params });
  }

  /** Sends a server request; the returned promise settles with the client's answer. */
  request(method: string, params: unknown, threadId?: string): { id: RequestId; response: Promise<unknown> } {
    const id = `s${this.nextServerRequestId++}`;
    const response = new Promise<unknown>((resolve, reject) => {
      if (this.state === "closed") {
        reject(new AppServerError("internal", "the connection is closed"));
        return;
      }
      this.outstanding.set(id, { threadId, resolve, reject });
      this.send({ id, method, params });
    });
    return { id, response };
  }

  /** Withdraws an outstanding server request and tells the client. */
  cancelRequest(id: RequestId): void {
    const entry = this.outstanding.get(id);
    if (entry === undefined) return;
    this.outstanding.delete(id);
    entry.reject(new AppServerError("internal", "the request was withdrawn"));
    const params =
      entry.threadId === undefined ? { requestId: id } : { threadId: entry.threadId, requestId: id };
    this.notify({ method: "serverRequest/cancelled", params });
  }

  /** Answers every accepted, unanswered request with `code`; later results are dropped. */
  answerUnfinished(code: "shuttingDown", message: string): void {
    for (const id of [...this.accepted.keys()])
      this.respondError(id, new AppServerError(code, message), true);
  }

  /** Resolves once no accepted request is unanswered. */
  settled(): Promise<void> {
    if (this.accepted.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** Closes the transport; `connectionClosed` follows through `onclose`. */
  async close(): Promise<void> {
    await this.transport.close();
    this.closed();
  }

  private receive(raw: unknown): void {
    if (this.state === "closed") return;
    if (this.held !== undefined) {
      this.held.push(raw);
      return;
    }
    const classified = classifyMessage(raw);
    if (classified === null) {
      this.answerMalformed(raw);
      return;
    }
    if (classified.kind === "response") {
      this.receiveResponse(classified.message);
      return;
    }
    if (classified.kind === "notification") {
      if (classified.message.method === "initialized" && this.state === "initializing") this.state = "ready";
      return;
    }
    const { id, method, params } = classified.message;
    if (this.accepted.has(id)) {
      // answering under an id still in flight would orphan the first request's answer
      this.sendResponse({
        id,
        error: new AppServerError("invalidRequest", "this request id is already in flight").toWire(),
      });
      return;
    }
    if (this.host.isShuttingDown()) {
      this.respondError(id, new AppServerError("shuttingDown", "the server is shutting down"));
      return;
    }
    if (method === "initialize") {
      this.initialize(id, params);
      return;
    }
    if (this.state !== "ready") {
      this.respondError(id, new AppServerError("notInitialized", "send initialize, then initialized, first"));
      return;
    }
    const validation = validateRequestParams(method, params);
    if (validation === null) {
      this.respondError(id, new AppServerError("methodNotFound", `unknown method '${method}'`));
      return;
    }
    if (!validation.ok) {
      this.respondError(
        id,
        new AppServerError("invalidParams", `invalid params for '${method}'`, { errors: validation.issues }),
      );
      return;
    }
    if (this.accepted.size >= (this.host.maxRequestsInFlight ?? MAX_REQUESTS_IN_FLIGHT)) {
      this.respondError(
        id,
        new AppServerError(
          "overloaded",
          `too many requests in flight on this connection; retry in ${OVERLOAD_RETRY_AFTER_MS} ms`,
          {
            retryAfterMs: OVERLOAD_RETRY_AFTER_MS,
          },
        ),
      );
      return;
    }
    this.accepted.set(id, { method });
    this.host.dispatch(this, method, validation.value, id).then(
      (result) => this.respond(id, result),
      (error: unknown) => this.respondError(id, error, true),
    );
  }

  private initialize(id: RequestId, params: unknown): void {
    if (this.state !== "new") {
      this.respondError(id, new AppServerError("alreadyInitialized", "initialize was already called"));
      return;
    }
    const validation = validateRequestParams("initialize", params);
    if (validation === null || !validation.ok) {
      this.respondError(
        id,
        new AppServerError("invalidParams", "invalid params for 'initialize'", {
          errors: validation?.ok === false ? validation.issues : [],
        }),
      );
      return;
    }
    const init = validation.value as InitializeParams;
    this.optOut = new Set(init.capabilities?.optOutNotifications ?? []);
    this.showsExtensionDialogs = init.capabilities?.extensionDialogs === true;
    this.state = "initializing";
    const ready = this.host.ready();
    if (ready === undefined) {
      this.sendResponse({ id, result: this.host.initializeResult() });
      return;
    }
    // Every method after the handshake needs what `ready` waits for; answering earlier
    // would only move the wait into the client's first request. What the client sends
    // meanwhile (a pipelined `initialized` and requests) is handled after the answer, in order.
    this.held = [];
    const answer = () => {
      const held = this.held ?? [];
      this.held = undefined;
      if (this.state === "closed") return;
      this.sendResponse({ id, result: this.host.initializeResult() });
      for (const raw of held) this.receive(raw);
    };
    ready.then(answer, answer);
  }

  private receiveResponse(message: { id: RequestId | null; result?: unknown; error?: unknown }): void {
    if (message.id === null) return;
    const entry = this.outstanding.get(message.id);
    if (entry === undefined) return;
    this.outstanding.delete(message.id);
    if ("error" in message && message.error !== undefined) {
      const wire = message.error as { code: string; message: string; data?: unknown };
      entry.reject(new AppServerError(wire.code, wire.message, wire.data));
    } else {
      entry.resolve(message.result);
    }
  }

  private answerMalformed(raw: unknown): void {
    const record =
      typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    const id = record.id;
    const usableId = typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
    // a stray response to an unknown request is not worth an answer
    if (usableId !== null && ("result" in record || "error" in record) && !("method" in record)) return;
    this.sendResponse({
      id: usableId,
      error: new AppServerError("invalidRequest", "not a request, response or notification").toWire(),
    });
  }

  private transportError(error: Error): void {
    const kind = (error as { kind?: unknown }).kind;
    if (kind === "oversized") {
      this.notifyConnection("error", {
        code: "lineTooLong",
        message: error.message,
        data: { limitBytes: (error as { limitBytes?: number }).limitBytes ?? MAX_LINE_BYTES },
      });
    } else if (kind === "unparseable") {
      this.sendResponse({ id: null, error: new AppServerError("parseError", error.message).toWire() });
    } else {
      logLine(`knightcode: connection ${this.id}: ${error.message}\n`);
    }
  }

  private respond(id: RequestId, result: unknown): void {
    if (!this.accepted.delete(id)) return;
    if (result instanceof FollowedResult) {
      this.sendResponse({ id, result: result.result });
      result.after();
    } else {
      this.sendResponse({ id, result });
    }
    this.afterSettle();
  }

  /** Answers a request with an error; only an accepted request is settled by it. */
  private respondError(id: RequestId, error: unknown, accepted = false): void {
    if (accepted && !this.accepted.delete(id)) return;
    this.sendResponse({ id, error: toAppServerError(error).toWire() });
    if (accepted) this.afterSettle();
  }

  private afterSettle(): void {
    if (this.accepted.size === 0) for (const wake of this.settledWaiters.splice(0)) wake();
  }

  /**
   * Sends a response. A result the transport cannot serialize (a BigInt, a cycle) still
   * answers the request, as `internal`: a client must never wait forever for an id.
   */
  private sendResponse(message: Message): void {
    if (this.state === "closed") return;
    this.transport.send(message).catch((error: unknown) => {
      if (this.state === "closed" || error instanceof TransportClosedError) return;
      const id = (message as { id?: RequestId | null }).id ?? null;
      logLine(`knightcode: could not send the response to ${String(id)}: ${String(error)}\n`);
      if (!("result" in message)) return;
      this.send({ id, error: new AppServerError("internal", "the result could not be serialized").toWire() });
    });
  }

  private send(message: Message): void {
    if (this.state === "closed") return;
    this.transport.send(message).catch((error: unknown) => {
      if (this.state !== "closed") logLine(`knightcode: send failed on ${this.id}: ${String(error)}\n`);
    });
  }

  private closed(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    for (const [id, entry] of this.outstanding) {
      this.outstanding.delete(id);
      entry.reject(new AppServerError("internal", "the connection closed"));
    }
    this.accepted.clear();
    this.afterSettle();
    this.host.connectionClosed(this);
  }
}

const WIRE_CODES = new Set<string>(ERROR_CODES);

/**
 * The local error classes whose `code` is a wire code (config, session store, file search):
 * checked by class, so a foreign error that merely has a `code` property is not taken for one.
 */
function carriesWireCode(error: unknown): error is ConfigError | SessionStoreError | FileSearchError {
  return (
    error instanceof ConfigError || error instanceof SessionStoreError || error instanceof FileSearchError
  );
}

/**
 * Any thrown value as a wire error: `AppServerError` as is, a local error carrying a
 * known wire `code` with its message and data, anything else as `internal`.
 */
export function toAppServerError(error: unknown): AppServerError {
  if (error instanceof AppServerError) return error;
  if (carriesWireCode(error) && WIRE_CODES.has(error.code)) {
    return new AppServerError(
      error.code,
      error.message,
      error instanceof FileSearchError ? undefined : error.data,
    );
  }
  if (error instanceof Error) {
    logLine(`knightcode: internal error: ${error.stack ?? error.message}\n`);
    return new AppServerError("internal", error.message);
  }
  return new AppServerError("internal", String(error));
}
