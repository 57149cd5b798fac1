/**
 * The client side of the WebSocket transport: one JSON-RPC message per text frame, over
 * the runtime's global `WebSocket` (Bun, Node 22+, browsers). The token travels in the
 * `Authorization` header where the runtime lets a WebSocket set headers (Bun, Node), and
 * as a subprotocol where it does not (browsers); see `remote-auth.ts`.
 */
import type { Message } from "./messages.ts";
import { bearerSubprotocols, isLoopbackHost, KNIGHTCODE_SUBPROTOCOL } from "./remote-auth.ts";
import { type Transport, TransportClosedError } from "./transport.ts";

/** How the token is presented: a header (programs) or a subprotocol (browsers). */
export type TokenPresentation = "authorization" | "subprotocol";

/** Options for {@link WebSocketTransport}. */
export interface WebSocketTransportOptions {
  /** The listener's token; absent for a listener that needs none. */
  token?: string;
  /** Default: `authorization` under Bun and Node, `subprotocol` in a browser. */
  tokenVia?: TokenPresentation;
  /**
   * Send a token over plain `ws://` to a host that is not loopback. Off by default: the
   * token would cross the network in clear text.
   */
  allowInsecureToken?: boolean;
  /** Bun only: certificates to trust for `wss://` besides the system's (a self-signed server's). */
  tls?: { ca?: string | string[] };
}

/** The connection could not be opened (refused, 401/403, TLS failure, a token refused for ws://). */
export class WebSocketConnectError extends Error {
  override readonly name = "WebSocketConnectError";
}

/** Bun and Node accept `{headers, protocols}` as the second argument; a browser only protocols. */
type WebSocketConstructor = new (
  url: string,
  init?:
    | string[]
    | { headers?: Record<string, string>; protocols?: string[]; tls?: { ca?: string | string[] } },
) => WebSocket;

function runsInBrowser(): boolean {
  const g = globalThis as { process?: { versions?: { node?: string; bun?: string } } };
  return g.process?.versions?.node === undefined && g.process?.versions?.bun === undefined;
}

/** A transport over one WebSocket to a `knightcode app-server --listen ws(s)://` listener. */
export class WebSocketTransport implements Transport {
  onmessage?: (message: Message) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private socket: WebSocket | undefined;
  private closed = false;

  constructor(
    readonly url: string,
    private readonly options: WebSocketTransportOptions = {},
  ) {}

  /** Opens the socket; rejects with {@link WebSocketConnectError} when it cannot be opened. */
  async start(): Promise<void> {
    const url = new URL(this.url);
    const token = this.options.token;
    if (token !== undefined && url.protocol === "ws:" && !isLoopbackHost(url.hostname)) {
      if (this.options.allowInsecureToken !== true) {
        throw new WebSocketConnectError(
          `refusing to send the token in clear text to ${url.host}: use wss://, or ssh port forwarding to a loopback address`,
        );
      }
    }
    const browser = runsInBrowser();
    const via = this.options.tokenVia ?? (browser ? "subprotocol" : "authorization");
    const protocols =
      token !== undefined && via === "subprotocol" ? bearerSubprotocols(token) : [KNIGHTCODE_SUBPROTOCOL];
    const Ctor = globalThis.WebSocket as unknown as WebSocketConstructor;
    // a browser's WebSocket takes protocols only; Bun and Node also take headers (and Bun TLS options)
    const socket = browser
      ? new Ctor(this.url, protocols)
      : new Ctor(this.url, {
          protocols,
          ...(token !== undefined && via === "authorization"
            ? { headers: { authorization: `Bearer ${token}` } }
            : {}),
          ...(this.options.tls === undefined ? {} : { tls: this.options.tls }),
        });
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      let opened = false;
      socket.onopen = () => {
        opened = true;
        resolve();
      };
      socket.onerror = (event) => {
        const detail = (event as { message?: string }).message;
        const error = new WebSocketConnectError(
          `could not connect to ${url.origin}${detail === undefined ? "" : `: ${detail}`}`,
        );
        if (!opened) reject(error);
        else this.onerror?.(error);
      };
      socket.onclose = (event) => {
        if (!opened) reject(new WebSocketConnectError(`connection to ${url.origin} closed (${event.code})`));
        this.finish();
      };
    });
    socket.onmessage = (event) => this.receive(event.data);
  }

  private receive(data: unknown): void {
    if (typeof data !== "string") {
      this.onerror?.(new Error("the server sent a binary frame; the protocol uses text frames"));
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      this.onerror?.(new Error(`unparseable frame: ${data.slice(0, 200)}`));
      return;
    }
    this.onmessage?.(parsed as Message);
  }

  async send(message: Message): Promise<void> {
    if (this.closed || this.socket === undefined || this.socket.readyState !== 1) {
      throw new TransportClosedError();
    }
    this.socket.send(JSON.stringify(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      this.socket?.close(1000);
    } catch {
      // already gone
    }
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
