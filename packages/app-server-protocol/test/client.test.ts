import { describe, expect, test } from "bun:test";
import {
  AppServerClient,
  AppServerError,
  ConnectionClosedError,
  createInMemoryTransportPair,
  type Message,
  PAYLOAD_CHUNK_BYTES,
  type PayloadRef,
  type ThreadItem,
  type Transport,
  type Turn,
} from "../src/index.ts";

/** A tiny server for the tests: answers a few methods and can ask the client a question. */
function createTestServer(transport: Transport, payloads: Map<string, Uint8Array>) {
  const asked: Message[] = [];
  const gates = new Map<string, () => void>();
  transport.onmessage = (message) => {
    asked.push(message);
    if (!("method" in message) || !("id" in message)) return;
    const { id, method } = message;
    const params = (message.params ?? {}) as Record<string, unknown>;
    const reply = (body: object) => void transport.send({ id, ...body } as Message);
    switch (method) {
      case "echo/slow": {
        // Answered only when the test opens the gate: proves out-of-order completion.
        gates.set(String(params.key), () => reply({ result: { echoed: params.key } }));
        return;
      }
      case "echo":
        return reply({ result: { echoed: params.value } });
      case "fail":
        return reply({
          error: { code: "archiveConflict", message: "exists", data: { survivingFiles: ["/a", "/b"], n: 1 } },
        });
      case "payload/read": {
        const data = payloads.get(String(params.id));
        if (data === undefined) return reply({ error: { code: "payloadNotFound", message: "gone" } });
        const offset = Number(params.offset);
        const end = Math.min(offset + PAYLOAD_CHUNK_BYTES, data.length);
        const eof = end >= data.length;
        return reply({
          result: {
            data: Buffer.from(data.subarray(offset, end)).toString("base64"),
            eof,
            ...(eof ? {} : { nextOffset: end }),
          },
        });
      }
      case "hang":
        return;
    }
  };
  return {
    asked,
    open: (key: string) => gates.get(key)?.(),
    send: (message: Message) => transport.send(message),
  };
}

async function setup(payloads = new Map<string, Uint8Array>()) {
  const [clientSide, serverSide] = createInMemoryTransportPair();
  const server = createTestServer(serverSide, payloads);
  await serverSide.start();
  const client = new AppServerClient(clientSide);
  await client.connect();
  return { client, server, serverSide };
}

// The client is typed against the protocol's method table; the test server speaks extra
// methods, so tests reach them through this loosely typed view.
type Loose = { request(method: string, params: unknown): Promise<unknown> };
const loose = (client: AppServerClient) => client as unknown as Loose;

describe("AppServerClient", () => {
  test("many concurrent requests resolve to their own results, whatever the answer order", async () => {
    const { client, server } = await setup();
    const requests = ["a", "b", "c"].map((key) => loose(client).request("echo/slow", { key }));
    server.open("c");
    server.open("a");
    server.open("b");
    expect(await Promise.all(requests)).toEqual([{ echoed: "a" }, { echoed: "b" }, { echoed: "c" }]);
  });

  test("error responses reject with AppServerError keeping code, message and data exactly", async () => {
    const { client } = await setup();
    const error = (await loose(client)
      .request("fail", {})
      .catch((e: unknown) => e)) as AppServerError;
    expect(error).toBeInstanceOf(AppServerError);
    expect(error.code).toBe("archiveConflict");
    expect(error.message).toBe("exists");
    expect(error.data).toEqual({ survivingFiles: ["/a", "/b"], n: 1 });
    expect(error.toWire()).toEqual({
      code: "archiveConflict",
      message: "exists",
      data: { survivingFiles: ["/a", "/b"], n: 1 },
    });
  });

  test("server requests are answered by the registered handler, with string or numeric ids", async () => {
    const { client, server, serverSide } = await setup();
    client.onRequest("item/toolCall/requestApproval", (params) => ({
      decision: params.decisions.includes("acceptForSession") ? "acceptForSession" : "decline",
      message: "ok",
    }));
    const answers: Message[] = [];
    const previous = serverSide.onmessage;
    let allAnswered!: () => void;
    const threeAnswers = new Promise<void>((resolve) => {
      allAnswered = resolve;
    });
    serverSide.onmessage = (message) => {
      if (!("result" in message || "error" in message)) return previous?.(message);
      answers.push(message);
      if (answers.length === 3) allAnswered();
    };
    const base = { threadId: "t", turnId: "u", itemId: "i", toolName: "write", input: {} };
    await server.send({
      id: "s1",
      method: "item/toolCall/requestApproval",
      params: { ...base, decisions: ["accept", "acceptForSession"] },
    });
    await server.send({
      id: 7,
      method: "item/toolCall/requestApproval",
      params: { ...base, decisions: ["decline"] },
    });
    await server.send({ id: 8, method: "unknown/request", params: {} });
    await threeAnswers;
    expect(answers).toEqual([
      { id: "s1", result: { decision: "acceptForSession", message: "ok" } },
      { id: 7, result: { decision: "decline", message: "ok" } },
      { id: 8, error: { code: "methodNotFound", message: "no handler for 'unknown/request'" } },
    ]);
  });

  test("a handler's AppServerError becomes the error response; serverRequest/cancelled aborts its signal", async () => {
    const { client, server, serverSide } = await setup();
    let aborted: Promise<void> | undefined;
    client.onRequest("item/toolCall/requestApproval", (_params, { signal }) => {
      aborted = new Promise((resolve) => signal.addEventListener("abort", () => resolve()));
      return aborted.then(() => {
        throw new AppServerError("internal", "withdrawn", { why: "cancelled" });
      });
    });
    const answered = new Promise<Message>((resolve) => {
      const previous = serverSide.onmessage;
      serverSide.onmessage = (message) => ("error" in message ? resolve(message) : previous?.(message));
    });
    const params = { threadId: "t", turnId: "u", itemId: "i", toolName: "bash", decisions: ["accept"] };
    await server.send({ id: 3, method: "item/toolCall/requestApproval", params });
    await server.send({ method: "serverRequest/cancelled", params: { requestId: 3 } });
    expect(await answered).toEqual({
      id: 3,
      error: { code: "internal", message: "withdrawn", data: { why: "cancelled" } },
    });
  });

  test("notifications reach method handlers and wildcard handlers", async () => {
    const { client, server } = await setup();
    const seen: string[] = [];
    const off = client.onNotification("thread/deleted", (params) => seen.push(`deleted:${params.threadId}`));
    client.onNotification("*", (method) => seen.push(`any:${method}`));
    await server.send({ method: "thread/deleted", params: { threadId: "T1" } });
    off();
    await server.send({ method: "thread/deleted", params: { threadId: "T2" } });
    expect(seen).toEqual(["deleted:T1", "any:thread/deleted", "any:thread/deleted"]);
  });

  test("readPayload concatenates several base64 chunks by byte offset", async () => {
    const data = new Uint8Array(PAYLOAD_CHUNK_BYTES * 3 + 123);
    for (let i = 0; i < data.length; i++) data[i] = (i * 31) % 251;
    const { client, server } = await setup(new Map([["p1", data]]));
    const read = await client.readPayload({ type: "payloadRef", id: "p1", byteLength: data.length });
    expect(Buffer.from(read).equals(Buffer.from(data))).toBe(true);
    const reads = server.asked.filter((m) => "method" in m && m.method === "payload/read");
    expect(reads.map((m) => (m as { params: { offset: number } }).params.offset)).toEqual([
      0,
      PAYLOAD_CHUNK_BYTES,
      PAYLOAD_CHUNK_BYTES * 2,
      PAYLOAD_CHUNK_BYTES * 3,
    ]);
  });

  test("resolveTurn replaces a turn reference and its items' tool input/output references", async () => {
    const input = { path: "big.txt", content: "é".repeat(40_000) };
    const output = "ok ✓";
    const encoder = new TextEncoder();
    const item = {
      id: "call_1",
      type: "toolCall",
      toolName: "write",
      status: "completed",
      inputRef: { type: "payloadRef", id: "in", byteLength: encoder.encode(JSON.stringify(input)).length },
      outputRef: { type: "payloadRef", id: "out", byteLength: encoder.encode(output).length },
    };
    const turn = { id: "T", status: "completed", startedAt: 1, completedAt: 2, items: [item] };
    const turnBytes = encoder.encode(JSON.stringify(turn));
    const payloads = new Map([
      ["turn", turnBytes],
      ["in", encoder.encode(JSON.stringify(input))],
      ["out", encoder.encode(output)],
    ]);
    const { client } = await setup(payloads);
    const ref: PayloadRef = { type: "payloadRef", id: "turn", byteLength: turnBytes.length };
    const resolved: Turn = await client.resolveTurn(ref);
    expect(resolved.items).toEqual([
      { id: "call_1", type: "toolCall", toolName: "write", status: "completed", input, output },
    ]);
  });

  test("resolveItem replaces a user message's image references by the images", async () => {
    const encoder = new TextEncoder();
    const large = { mimeType: "image/png" as const, data: "iVBORw0KGgo".repeat(8_000) };
    const small = { mimeType: "image/jpeg" as const, data: "/9j/4AAQ" };
    const largeBytes = encoder.encode(JSON.stringify(large));
    const { client } = await setup(new Map([["img", largeBytes]]));
    const item = {
      id: "u1",
      type: "userMessage" as const,
      text: "look",
      images: [small, { type: "payloadRef" as const, id: "img", byteLength: largeBytes.length }],
    };
    expect(await client.resolveItem(item satisfies ThreadItem)).toEqual({ ...item, images: [small, large] });
  });

  test("closing the transport rejects pending requests with a clear error", async () => {
    const { client, serverSide } = await setup();
    const pending = loose(client).request("hang", {});
    await serverSide.close();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).message).toContain("'hang'");
    await expect(loose(client).request("echo", { value: 1 })).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});

describe("in-memory transport pair", () => {
  test("queues messages until the receiver starts, and closing one side closes both", async () => {
    const [a, b] = createInMemoryTransportPair();
    const received: Message[] = [];
    b.onmessage = (m) => received.push(m);
    let closedA = 0;
    let closedB = 0;
    a.onclose = () => closedA++;
    b.onclose = () => closedB++;
    await a.start();
    await a.send({ method: "one" });
    await a.send({ method: "two" });
    expect(received).toEqual([]);
    await b.start();
    expect(received).toEqual([{ method: "one" }, { method: "two" }]);
    await b.close();
    expect([closedA, closedB]).toEqual([1, 1]);
    await expect(a.send({ method: "three" })).rejects.toThrow("closed");
  });
});
