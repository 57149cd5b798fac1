import { describe, expect, test } from "bun:test";
import {
  AppServerClient,
  createInMemoryTransportPair,
  type Message,
  ReconnectingTransport,
  type Transport,
} from "../src/index.ts";

/** A server side that answers `initialize` and `thread/resume` and records what it got; `hang` methods never answer. */
function fakeServer(hang: Set<string>) {
  const received: Record<string, unknown>[] = [];
  const connections: Transport[] = [];
  const open = async (): Promise<Transport> => {
    const [client, server] = createInMemoryTransportPair();
    connections.push(server);
    server.onmessage = (message: Message) => {
      const m = message as unknown as Record<string, unknown>;
      received.push(m);
      if (!("id" in m) || hang.has(String(m.method))) return;
      const result =
        m.method === "thread/resume"
          ? {
              stream: { id: "s1", seq: 9 },
              replay: (m.params as { replay?: unknown }).replay ? "gone" : undefined,
            }
          : m.method === "thread/start"
            ? { thread: { id: "t1" }, stream: { id: "s1", seq: 3 } }
            : {};
      void server.send({ id: m.id as string, result } as Message);
    };
    await server.start();
    await client.start();
    return client;
  };
  return { received, connections, open };
}

describe("ReconnectingTransport", () => {
  test("after a drop: in-flight requests fail with the reason, the handshake is repeated, followed threads resume with replay", async () => {
    const hang = new Set(["model/list"]);
    const server = fakeServer(hang);
    const gaps: string[] = [];
    const reconnected = Promise.withResolvers<void>();
    const transport = new ReconnectingTransport({
      open: server.open,
      retryDelaysMs: [1],
      onGap: (threadId) => gaps.push(threadId),
      onReconnected: () => reconnected.resolve(),
    });
    const client = new AppServerClient(transport);
    await client.connect();
    await client.initialize({ clientInfo: { name: "t", version: "1" } });
    await client.request("thread/start", { cwd: "/p" });
    // the thread's stream moved on to seq 5 before the drop
    await server.connections[0]!.send({
      method: "item/agentMessage/delta",
      params: { threadId: "t1" },
      seq: 5,
    } as Message);
    const lost = client.request("model/list", {});
    await server.connections[0]!.close();
    let error: unknown;
    try {
      await lost;
    } catch (caught) {
      error = caught;
    }
    expect((error as { code?: string }).code).toBe("internal");
    expect(String(error)).toContain("the connection was lost before 'model/list' was answered");
    await reconnected.promise;
    const second = server.received.slice(server.received.findIndex((m) => m.method === "model/list") + 1);
    expect(second.map((m) => m.method)).toEqual(["initialize", "initialized", "thread/resume"]);
    expect(second[2]?.params).toEqual({ threadId: "t1", replay: { streamId: "s1", afterSeq: 5 } });
    expect(gaps).toEqual(["t1"]);
    // the client goes on over the new connection
    hang.clear();
    expect(await client.request("model/list", {})).toEqual({} as never);
    await client.close();
  });

  test("a first connection that cannot be opened is the caller's error, with no retries", async () => {
    let opens = 0;
    const transport = new ReconnectingTransport({
      open: async () => {
        opens++;
        throw new Error("refused");
      },
    });
    await expect(transport.start()).rejects.toThrow("refused");
    expect(opens).toBe(1);
  });
});
