/**
 * The same server without a process boundary: an in-memory transport pair with the
 * server on one side and an `AppServerClient` on the other. The host owns the
 * ThreadManager (and whatever shared context it built it from); closing stops input,
 * lets the server answer what it accepted, and awaits `threads.closeAll()`.
 */
import { AppServerClient, createInMemoryTransportPair } from "@knightcode/app-server-protocol";
import type { LiveComponentSurface } from "@knightcode/extensions";
import { type AppServer, type AppServerOptions, createAppServer } from "./server.ts";

/** Options for {@link createInProcessClient}. */
export interface InProcessClientOptions extends AppServerOptions {
  /** `terminal` for the terminal CLI (threads default to `fullAccess`); `desktop` otherwise. */
  clientKind?: "desktop" | "terminal";
  /** Connect to an existing server instead of creating one (several in-process clients, one server). */
  server?: AppServer;
  clientInfo?: { name: string; version?: string };
  optOutNotifications?: string[];
  /** Declare `capabilities.extensionDialogs`: this client shows extension dialogs. */
  extensionDialogs?: boolean;
  /** The client draws extensions' pi-tui components itself (the terminal agent); see live-components.ts. */
  components?: LiveComponentSurface;
  /** Connect without the handshake (for clients that perform it themselves). */
  skipInitialize?: boolean;
}

/** A connected, initialized in-process client. */
export interface InProcessClient {
  client: AppServerClient;
  server: AppServer;
  /** Stops input, answers accepted requests, awaits `threads.closeAll()`, closes the pair. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Creates (or joins) a server, connects over an in-memory pair and performs the handshake unless told not to. */
export async function createInProcessClient(options: InProcessClientOptions): Promise<InProcessClient> {
  const server = options.server ?? createAppServer(options);
  const [clientSide, serverSide] = createInMemoryTransportPair();
  const client = new AppServerClient(clientSide);
  await server.connect(serverSide, {
    clientKind: options.clientKind ?? "desktop",
    ...(options.components ? { components: options.components } : {}),
  });
  await client.connect();
  const capabilities = {
    ...(options.optOutNotifications === undefined
      ? {}
      : { optOutNotifications: options.optOutNotifications }),
    ...(options.extensionDialogs === true ? { extensionDialogs: true } : {}),
  };
  if (options.skipInitialize !== true) {
    await client.initialize({ clientInfo: options.clientInfo ?? { name: "in-process" }, capabilities });
  }
  const ownsServer = options.server === undefined;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      if (ownsServer) await server.shutdown();
      await client.close();
    })();
    return closing;
  };
  return { client, server, close, [Symbol.asyncDispose]: close };
}
