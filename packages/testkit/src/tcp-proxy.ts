/**
 * A loopback TCP proxy a test can cut: every connection through it is piped to the
 * target port, and `cut()` resets them all at once, as a network failure would, while the
 * proxy keeps accepting new ones (the client's reconnect goes through). `refuse(true)`
 * resets new connections as they arrive, so a test can hold a client in its reconnect
 * loop for as long as it needs, then `refuse(false)` lets the next attempt through.
 */
import { createServer, connect as dial, type Socket } from "node:net";

/** A running proxy. */
export interface CuttableProxy {
  readonly port: number;
  /** Connections accepted so far (a reconnect is one more). */
  readonly accepted: number;
  /** Resets every open connection, both ways. */
  cut(): void;
  /** While true, each new connection is reset at once (not counted in `accepted`). */
  refuse(refusing: boolean): void;
  /** Connections reset by `refuse` so far. */
  readonly refused: number;
  close(): Promise<void>;
}

/** Starts a proxy on an ephemeral loopback port to `127.0.0.1:targetPort`. */
export async function startCuttableProxy(targetPort: number): Promise<CuttableProxy> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let refused = 0;
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) {
      refused++;
      client.on("error", () => {});
      client.resetAndDestroy();
      return;
    }
    accepted++;
    const upstream = dial(targetPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      // a reset is what the test asked for
      socket.on("error", () => {});
      socket.once("close", () => sockets.delete(socket));
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no port");
  return {
    port: address.port,
    get accepted() {
      return accepted;
    },
    get refused() {
      return refused;
    },
    cut() {
      for (const socket of sockets) socket.resetAndDestroy();
    },
    refuse(on) {
      refusing = on;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
