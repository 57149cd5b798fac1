/** Connects an `AppServerClient` to a WebSocket listener and performs the handshake. */
import { AppServerClient } from "./client.ts";
import type { InitializeParams, InitializeResult } from "./methods/handshake.ts";
import { WebSocketTransport, type WebSocketTransportOptions } from "./websocket-transport.ts";

/** Options for {@link connectWebSocket}. */
export interface ConnectWebSocketOptions extends WebSocketTransportOptions {
  initialize: InitializeParams;
}

/** An initialized client over a WebSocket, with the server's `initialize` answer. */
export interface WebSocketConnection {
  client: AppServerClient;
  transport: WebSocketTransport;
  initialized: InitializeResult;
}

/** Opens `url` (`ws://` or `wss://`), then `initialize` and `initialized`. */
export async function connectWebSocket(
  url: string,
  options: ConnectWebSocketOptions,
): Promise<WebSocketConnection> {
  const { initialize, ...transportOptions } = options;
  const transport = new WebSocketTransport(url, transportOptions);
  const client = new AppServerClient(transport);
  await client.connect();
  const initialized = await client.initialize(initialize);
  return { client, transport, initialized };
}
