/**
 * The page's connection to the server: one `AppServerClient` per socket, a new one after
 * each drop, with the handshake done before anyone uses it. A dropped socket is retried
 * with growing pauses (capped), and every successful (re)connect is announced so the app
 * can resume what it had open from the last sequence number it saw.
 */
import { AppServerClient, type InitializeResult, WebSocketTransport } from "@knightcode/app-server-protocol";

/** How the connection is doing, for the status line. */
export type ConnectionStatus = "connecting" | "connected" | "disconnected" | "unauthorized";

export interface ConnectionOptions {
  url: string;
  token: string;
  /** Registers handlers on a fresh client before its handshake. */
  setup: (client: AppServerClient) => void;
  /** Called after each successful handshake. */
  onConnected: (client: AppServerClient, init: InitializeResult, reconnect: boolean) => void;
  onStatus: (status: ConnectionStatus, detail?: string) => void;
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
const UNREACHABLE =
  "cannot reach the server, or it refused this tab's token (a restarted server prints a new link)";

/** Keeps a client connected. */
export class Connection {
  client: AppServerClient | undefined;
  private retryMs = FIRST_RETRY_MS;
  private connectedOnce = false;

  constructor(private readonly options: ConnectionOptions) {}

  /** Connects, and reconnects after every drop. */
  start(): void {
    void this.attempt();
  }

  private async attempt(): Promise<void> {
    this.options.onStatus("connecting");
    // a browser cannot set headers on a WebSocket: the token goes as a subprotocol
    const transport = new WebSocketTransport(this.options.url, {
      token: this.options.token,
      tokenVia: "subprotocol",
    });
    const client = new AppServerClient(transport);
    this.options.setup(client);
    let opened = false;
    client.onClose(() => {
      if (this.client === client) this.client = undefined;
      if (opened) this.retryMs = FIRST_RETRY_MS;
      const delay = this.retryMs;
      this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
      // a browser does not say why an upgrade failed: a refused token looks like a server that is gone
      const why = opened ? "connection lost" : UNREACHABLE;
      this.options.onStatus("disconnected", `${why}; retrying in ${delay / 1000}s`);
      setTimeout(() => void this.attempt(), delay);
    });
    try {
      await client.connect();
      opened = true;
      const init = await client.initialize({ clientInfo: { name: "knightcode-web", version: "1" } });
      this.client = client;
      this.options.onStatus("connected");
      const reconnect = this.connectedOnce;
      this.connectedOnce = true;
      this.options.onConnected(client, init, reconnect);
    } catch {
      // the close that follows reports it and schedules the next attempt
      await client.close().catch(() => {});
    }
  }
}
