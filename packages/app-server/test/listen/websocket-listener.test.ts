/**
 * The WebSocket listener in-process, over real loopback sockets: drain and capacity
 * answers, the heartbeat, and the per-frame limits of the transport.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { AppServerClient, type Message, WebSocketTransport } from "@knightcode/app-server-protocol";
import { tempAgentDir } from "@knightcode/testkit";
import { generateToken, type ListenerToken } from "../../src/listen/listener-token.ts";
import {
  startWebSocketListener,
  type WebSocketListenerOptions,
} from "../../src/listen/websocket-listener.ts";
import { type AppServer, createAppServer } from "../../src/server.ts";
import { FakeThreadManager } from "../support/fake-thread-manager.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(options: Partial<WebSocketListenerOptions> = {}) {
  const agent = await tempAgentDir();
  const token: ListenerToken = generateToken(agent.agentDir, "test");
  const server: AppServer = createAppServer({ threads: new FakeThreadManager(), shutdownAnswerMs: 50 });
  const listener = startWebSocketListener({
    address: { kind: "ws", hostname: "127.0.0.1", port: 0, loopback: true },
    token,
    accept: (transport) => void server.connect(transport, { reconnectable: true }),
    isReady: () => true,
    ...options,
  });
  cleanups.push(async () => {
    await listener.stop();
    await server.shutdown();
    await agent.remove();
  });
  return {
    listener,
    token: token.value,
    http: (path: string) => fetch(`http://127.0.0.1:${listener.port}${path}`),
  };
}

async function client(url: string, token: string) {
  const transport = new WebSocketTransport(url, { token });
  const appClient = new AppServerClient(transport);
  await appClient.connect();
  await appClient.initialize({ clientInfo: { name: "t", version: "1" } });
  return { transport, client: appClient };
}

describe("WebSocket listener", () => {
  test("from the first moment of a drain /readyz is 503, /healthz 200, and upgrades get 503 with Retry-After", async () => {
    const { listener, token, http } = await listen();
    const open = await client(listener.url, token);
    listener.startDrain();
    expect((await http("/readyz")).status).toBe(503);
    expect((await http("/healthz")).status).toBe(200);
    const upgrade = await fetch(`http://127.0.0.1:${listener.port}/`, {
      headers: {
        upgrade: "websocket",
        connection: "Upgrade",
        authorization: `Bearer ${token}`,
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      },
    });
    expect(upgrade.status).toBe(503);
    expect(upgrade.headers.get("retry-after")).toBe("1");
    // the connection already open goes on
    expect((await open.client.request("model/list", {})).models).toEqual([]);
  });

  test("/readyz is 503 until the host is ready", async () => {
    let ready = false;
    const { http } = await listen({ isReady: () => ready });
    expect((await http("/readyz")).status).toBe(503);
    ready = true;
    expect((await http("/readyz")).status).toBe(200);
  });

  test("past the connection limit an upgrade gets the retryable 503", async () => {
    const { listener, token } = await listen({ maxConnections: 1 });
    await client(listener.url, token);
    let refused: unknown;
    try {
      await client(listener.url, token);
    } catch (error) {
      refused = error;
    }
    expect(String(refused)).toContain("503");
  });

  /** A hand-made client: upgrades, then counts pings and answers each with a pong when `pong` is set. */
  async function rawClient(port: number, token: string, pong: boolean) {
    const socket = connect(port, "127.0.0.1");
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    let buffered = Buffer.alloc(0);
    let upgraded = false;
    let pings = 0;
    const pingWaiters: [number, () => void][] = [];
    const { promise: opened, resolve: open } = Promise.withResolvers<string>();
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!upgraded) {
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        upgraded = true;
        open(buffered.subarray(0, end).toString("latin1"));
        buffered = buffered.subarray(end + 4);
      }
      // server frames are unmasked; pings carry no payload here
      while (buffered.length >= 2 && buffered.length >= 2 + (buffered[1]! & 0x7f)) {
        const opcode = buffered[0]! & 0x0f;
        buffered = buffered.subarray(2 + (buffered[1]! & 0x7f));
        if (opcode !== 0x9) continue;
        pings++;
        // a client's frames are masked: FIN+pong, mask bit with no payload, a zero mask key
        if (pong) socket.write(Buffer.from([0x8a, 0x80, 0, 0, 0, 0]));
        for (const [count, wake] of [...pingWaiters]) if (pings >= count) wake();
      }
    });
    socket.write(
      `GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nauthorization: Bearer ${token}\r\n\r\n`,
    );
    return {
      head: await opened,
      closed,
      pings: (count: number) => new Promise<void>((resolve) => pingWaiters.push([count, resolve])),
      destroy: () => socket.destroy(),
    };
  }

  test("a connection that answers no ping is closed after three missed pongs", async () => {
    const { listener, token } = await listen({ pingIntervalMs: 20 });
    const raw = await rawClient(listener.port, token, false);
    expect(raw.head.startsWith("HTTP/1.1 101")).toBe(true);
    await raw.closed;
    expect(listener.connections.size).toBe(0);
  });

  test("a client that answers every ping stays connected through many heartbeats", async () => {
    const { listener, token } = await listen({ pingIntervalMs: 20 });
    const raw = await rawClient(listener.port, token, true);
    await raw.pings(8);
    expect(listener.connections.size).toBe(1);
    raw.destroy();
  });

  test("an oversized frame is dropped with lineTooLong and the connection lives on; a binary frame is a parseError", async () => {
    const { listener, token } = await listen({ limits: { maxMessageBytes: 200 } });
    const socket = new WebSocket(listener.url, {
      headers: { authorization: `Bearer ${token}` },
    } as unknown as string[]);
    const received: Message[] = [];
    const waiters: ((m: Message) => boolean)[] = [];
    const next = (match: (m: Record<string, unknown>) => boolean) =>
      new Promise<Record<string, unknown>>((resolve) => {
        waiters.push((m) => {
          if (!match(m as unknown as Record<string, unknown>)) return false;
          resolve(m as unknown as Record<string, unknown>);
          return true;
        });
      });
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data)) as Message;
      received.push(message);
      for (const waiter of [...waiters]) if (waiter(message)) waiters.splice(waiters.indexOf(waiter), 1);
    };
    await new Promise((resolve) => {
      socket.onopen = resolve;
    });
    const tooLong = next((m) => m.method === "error");
    socket.send(
      JSON.stringify({
        id: 1,
        method: "initialize",
        params: { clientInfo: { name: "x".repeat(300), version: "1" } },
      }),
    );
    expect(((await tooLong).params as { code: string; data: unknown }).code).toBe("lineTooLong");
    const binary = next((m) => (m.error as { code?: string } | undefined)?.code === "parseError");
    socket.send(new Uint8Array([123, 125]));
    await binary;
    const answer = next((m) => m.id === 2);
    socket.send(
      JSON.stringify({ id: 2, method: "initialize", params: { clientInfo: { name: "t", version: "1" } } }),
    );
    expect((await answer).result).toBeDefined();
    socket.close();
  });
});
