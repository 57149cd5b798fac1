/** A protocol peer that sends raw messages and awaits what comes back, for server unit tests. */
import { createInMemoryTransportPair, type Message, type Transport } from "@knightcode/app-server-protocol";
import type { AppServer } from "../../src/server.ts";

export interface RawPeer {
  transport: Transport;
  received: Message[];
  send(message: unknown): void;
  /** Resolves with the first received message (past or future) matching `match`. */
  next(match: (m: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  response(id: string | number): Promise<Record<string, unknown>>;
  handshake(optOut?: string[]): Promise<void>;
  closed: Promise<void>;
}

export async function rawPeer(
  server: AppServer,
  clientKind: "desktop" | "terminal" = "desktop",
): Promise<RawPeer> {
  const [client, serverSide] = createInMemoryTransportPair();
  const received: Message[] = [];
  const waiters: {
    match: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }[] = [];
  const { promise: closed, resolve: onClosed } = Promise.withResolvers<void>();
  client.onmessage = (message) => {
    received.push(message);
    for (const w of [...waiters]) {
      if (w.match(message as unknown as Record<string, unknown>)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(message as unknown as Record<string, unknown>);
      }
    }
  };
  client.onclose = () => onClosed();
  await server.connect(serverSide, { clientKind });
  await client.start();
  let nextId = 1000;
  const peer: RawPeer = {
    transport: client,
    received,
    closed,
    send(message) {
      void client.send(message as Message);
    },
    next(match, timeoutMs = 10_000) {
      const seen = received.find((m) => match(m as unknown as Record<string, unknown>));
      if (seen !== undefined) return Promise.resolve(seen as unknown as Record<string, unknown>);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("timed out waiting for a message")), timeoutMs);
        waiters.push({
          match,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
      });
    },
    response(id) {
      return peer.next((m) => m.id === id && ("result" in m || "error" in m));
    },
    async handshake(optOut) {
      const id = nextId++;
      const capabilities = optOut === undefined ? {} : { optOutNotifications: optOut };
      peer.send({ id, method: "initialize", params: { clientInfo: { name: "raw" }, capabilities } });
      await peer.response(id);
      peer.send({ method: "initialized", params: {} });
    },
  };
  return peer;
}
