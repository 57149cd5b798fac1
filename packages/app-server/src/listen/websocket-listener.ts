/**
 * The `ws://` / `wss://` listener on Bun's own HTTP and WebSocket server. Every request
 * passes the request policy first (Host of a loopback listener, Origin), then:
 *
 * - `GET /healthz`: 200 while the process serves; `GET /readyz`: 200 once connections are
 *   accepted and the host (session store, thread manager) has loaded, 503 from the first
 *   moment of a drain. Neither needs a token; both answer a bare word and nothing else.
 * - a WebSocket upgrade: the token (header or subprotocol) or 401 with an empty body;
 *   503 with `Retry-After` while draining or when the connection limit is reached.
 * - anything else: the optional `staticAssets` hook (the web client), else 404.
 *
 * A heartbeat pings every connection every 20 s; one that misses three pongs is closed,
 * which the server treats as any disconnect of a reconnectable client.
 */
import { KNIGHTCODE_SUBPROTOCOL, offersKnightcodeSubprotocol } from "@knightcode/app-server-protocol";
import type { Server, ServerWebSocket } from "bun";
import { attachUrl } from "./listen-address.ts";
import { type ListenerToken, tokenMatches } from "./listener-token.ts";
import { presentedToken, refusal } from "./request-policy.ts";
import { CLOSE_CODES, type WebSocketLimits, WebSocketServerTransport } from "./websocket-server-transport.ts";

/**
 * Serves what is not the protocol or a probe: the web client's page and assets. Return
 * undefined to answer 404. It runs after the Host and Origin checks and without a token
 * (the page carries its token in the URL fragment, which never reaches the server).
 */
export type StaticAssets = (request: Request) => Response | undefined | Promise<Response | undefined>;

/** Options for {@link startWebSocketListener}. */
export interface WebSocketListenerOptions {
  address: { kind: "ws" | "wss"; hostname: string; port: number; loopback: boolean };
  token: ListenerToken;
  /** PEM contents (not paths) of the certificate chain and key; required for wss. */
  tls?: { cert: string; key: string };
  allowOrigins?: readonly string[];
  staticAssets?: StaticAssets;
  /** A new authenticated connection: hand it to the app server. */
  accept(transport: WebSocketServerTransport): void;
  /** Whether the host can serve (for `/readyz`). */
  isReady(): boolean;
  /** Open connections beyond this are answered 503 (default 256). */
  maxConnections?: number;
  /** Heartbeat period (default 20 s) and the pongs a connection may miss (default 3). */
  pingIntervalMs?: number;
  maxMissedPongs?: number;
  limits?: WebSocketLimits;
}

/** A running listener. */
export interface WebSocketListener {
  /** `ws://127.0.0.1:PORT` with the real port. */
  readonly url: string;
  readonly port: number;
  readonly connections: ReadonlySet<WebSocketServerTransport>;
  /** Refuses new connections and turns `/readyz` to 503; open connections go on. */
  startDrain(): void;
  /** Closes every connection and stops listening. */
  stop(): Promise<void>;
}

/** Default limit of open connections. */
export const DEFAULT_MAX_CONNECTIONS = 256;
/** Heartbeat period. */
export const PING_INTERVAL_MS = 20_000;
/** Pongs a connection may miss before it is closed. */
export const MAX_MISSED_PONGS = 3;

type SocketData = { transport?: WebSocketServerTransport; protocol?: string };

function plain(status: number, body = "", headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });
}

/** Starts listening; resolves once the port is bound. */
export function startWebSocketListener(options: WebSocketListenerOptions): WebSocketListener {
  const connections = new Set<WebSocketServerTransport>();
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const limits = options.limits ?? {};
  const maxMessage = limits.maxMessageBytes ?? 64 * 1024 * 1024;
  const maxPending = limits.maxPendingOutputBytes ?? 64 * 1024 * 1024;
  const policy = {
    scheme: options.address.kind,
    loopback: options.address.loopback,
    allowOrigins: options.allowOrigins ?? [],
  };
  let draining = false;

  const fetch = async (request: Request, server: Server<SocketData>): Promise<Response | undefined> => {
    const refused = refusal(request, policy);
    if (refused !== undefined) return plain(403);
    const url = new URL(request.url);
    const upgrade = request.headers.get("upgrade")?.toLowerCase() === "websocket";
    if (!upgrade && (request.method === "GET" || request.method === "HEAD")) {
      if (url.pathname === "/healthz") return plain(200, "ok\n");
      if (url.pathname === "/readyz") {
        return !draining && options.isReady() ? plain(200, "ok\n") : plain(503, "not ready\n");
      }
    }
    if (!upgrade) return (await options.staticAssets?.(request)) ?? plain(404);
    if (!tokenMatches(presentedToken(request), options.token)) return new Response(null, { status: 401 });
    if (draining) return plain(503, "shutting down\n", { "retry-after": "1" });
    if (connections.size >= maxConnections)
      return plain(503, "too many connections\n", { "retry-after": "1" });
    const offered = request.headers.get("sec-websocket-protocol");
    // the answer names knightcode.v1 only: echoing the bearer subprotocol would put the token in a response
    const headers = offersKnightcodeSubprotocol(offered)
      ? { "sec-websocket-protocol": KNIGHTCODE_SUBPROTOCOL }
      : undefined;
    if (server.upgrade(request, { data: {}, ...(headers === undefined ? {} : { headers }) }))
      return undefined;
    return plain(400, "not a WebSocket upgrade\n");
  };

  const server = Bun.serve<SocketData>({
    hostname: options.address.hostname,
    port: options.address.port,
    ...(options.tls === undefined ? {} : { tls: { cert: options.tls.cert, key: options.tls.key } }),
    fetch,
    error: () => plain(500),
    websocket: {
      // a frame between the protocol's limit and this one is dropped with lineTooLong; beyond it Bun closes (1009)
      maxPayloadLength: maxMessage * 2,
      // the transport aborts at its own limit first; Bun must never drop a frame silently
      backpressureLimit: maxPending * 2,
      closeOnBackpressureLimit: false,
      idleTimeout: 0,
      sendPings: false,
      perMessageDeflate: false,
      open(socket: ServerWebSocket<SocketData>) {
        const transport = new WebSocketServerTransport(socket as ServerWebSocket<unknown>, limits);
        socket.data.transport = transport;
        connections.add(transport);
        options.accept(transport);
      },
      message(socket, message) {
        socket.data.transport?.receive(message);
      },
      drain(socket) {
        socket.data.transport?.drain();
      },
      pong(socket) {
        if (socket.data.transport !== undefined) socket.data.transport.missedPongs = 0;
      },
      close(socket) {
        const transport = socket.data.transport;
        if (transport === undefined) return;
        connections.delete(transport);
        transport.peerClosed();
      },
    },
  });

  const maxMissed = options.maxMissedPongs ?? MAX_MISSED_PONGS;
  const heartbeat = setInterval(() => {
    for (const transport of connections) {
      if (transport.missedPongs >= maxMissed) {
        connections.delete(transport);
        void transport.closeWith(CLOSE_CODES.policy, "no pong");
        continue;
      }
      transport.missedPongs++;
      try {
        transport.socket.ping();
      } catch {
        // closing already
      }
    }
  }, options.pingIntervalMs ?? PING_INTERVAL_MS);
  heartbeat.unref();

  const port = server.port ?? options.address.port;
  return {
    url: attachUrl(options.address, port),
    port,
    connections,
    startDrain() {
      draining = true;
    },
    async stop() {
      clearInterval(heartbeat);
      for (const transport of [...connections])
        await transport.closeWith(CLOSE_CODES.goingAway, "server shut down");
      connections.clear();
      await server.stop(true);
    },
  };
}
