import { afterEach, describe, expect, test } from "bun:test";
import { homedir } from "node:os";
import type { ThreadItem } from "@knightcode/app-server-protocol";
import { type AppServer, createAppServer } from "../src/server.ts";
import { FakeThreadManager } from "./support/fake-thread-manager.ts";
import { rawPeer } from "./support/raw-peer.ts";

const servers: AppServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.shutdown();
});

function setup(options: { shutdownAnswerMs?: number; maxRequestsInFlight?: number } = {}) {
  const threads = new FakeThreadManager();
  const server = createAppServer({ threads, ...options });
  servers.push(server);
  return { threads, server };
}

const errorCode = (m: Record<string, unknown>) => (m.error as { code: string } | undefined)?.code;

describe("handshake", () => {
  test("initialize returns serverInfo and platform", async () => {
    const { server } = setup();
    const peer = await rawPeer(server);
    peer.send({ id: 1, method: "initialize", params: { clientInfo: { name: "t", version: "1" } } });
    const response = await peer.response(1);
    const result = response.result as { serverInfo: { name: string }; platform: Record<string, string> };
    expect(result.serverInfo.name).toBeString();
    expect(result.platform).toEqual({
      os: process.platform,
      arch: process.arch,
      homeDir: homedir(),
      cwd: process.cwd(),
    });
  });

  test("requests before initialize, and between initialize and initialized, return notInitialized", async () => {
    const { server } = setup();
    const peer = await rawPeer(server);
    peer.send({ id: "a", method: "model/list", params: {} });
    expect(errorCode(await peer.response("a"))).toBe("notInitialized");
    peer.send({ id: 1, method: "initialize", params: { clientInfo: { name: "t" } } });
    await peer.response(1);
    peer.send({ id: "b", method: "model/list", params: {} });
    expect(errorCode(await peer.response("b"))).toBe("notInitialized");
    peer.send({ method: "initialized", params: {} });
    peer.send({ id: "c", method: "model/list", params: {} });
    expect((await peer.response("c")).result).toEqual({ models: [] });
  });

  test("an unknown method before the handshake is notInitialized; after it, methodNotFound", async () => {
    const { server } = setup();
    const peer = await rawPeer(server);
    peer.send({ id: 1, method: "no/such", params: {} });
    expect(errorCode(await peer.response(1))).toBe("notInitialized");
    await peer.handshake();
    peer.send({ id: 2, method: "no/such", params: {} });
    expect(errorCode(await peer.response(2))).toBe("methodNotFound");
  });

  test("a second initialize is refused with alreadyInitialized", async () => {
    const { server } = setup();
    const peer = await rawPeer(server);
    await peer.handshake();
    peer.send({ id: 9, method: "initialize", params: { clientInfo: { name: "t" } } });
    expect(errorCode(await peer.response(9))).toBe("alreadyInitialized");
  });

  test("invalid initialize params, including 257 opt-outs, are invalidParams with validator paths", async () => {
    const { server } = setup();
    const peer = await rawPeer(server);
    const names = Array.from({ length: 257 }, (_, i) => `n${i}`);
    peer.send({
      id: 1,
      method: "initialize",
      params: { clientInfo: { name: "t" }, capabilities: { optOutNotifications: names } },
    });
    const response = await peer.response(1);
    expect(errorCode(response)).toBe("invalidParams");
    const data = (response.error as { data: { errors: { path: string }[] } }).data;
    expect(data.errors.map((e) => e.path)).toContain("/capabilities/optOutNotifications");
    peer.send({ id: 2, method: "initialize", params: { clientInfo: {} } });
    const second = await peer.response(2);
    expect((second.error as { data: { errors: { path: string }[] } }).data.errors[0]!.path).toBe(
      "/clientInfo",
    );
    // 256 names, unknown ones among them, are fine
    peer.send({
      id: 3,
      method: "initialize",
      params: { clientInfo: { name: "t" }, capabilities: { optOutNotifications: names.slice(0, 256) } },
    });
    expect((await peer.response(3)).result).toBeDefined();
  });

  test("invalid params of a method are invalidParams with the failing paths", async () => {
    const { server } = setup();
    const peer = await rawPeer(server);
    await peer.handshake();
    peer.send({ id: 1, method: "file/search", params: { cwd: "/", query: "", limit: 500 } });
    const response = await peer.response(1);
    expect(errorCode(response)).toBe("invalidParams");
    const paths = (response.error as { data: { errors: { path: string }[] } }).data.errors.map((e) => e.path);
    expect(paths).toContain("/query");
    expect(paths).toContain("/limit");
  });

  test("malformed messages get well-formed invalidRequest errors", async () => {
    const { server } = setup();
    const peer = await rawPeer(server);
    peer.send({ id: 5, method: 42 });
    expect(errorCode(await peer.response(5))).toBe("invalidRequest");
    peer.send([1, 2]);
    const nullId = await peer.next((m) => m.id === null);
    expect(errorCode(nullId)).toBe("invalidRequest");
  });
});

describe("routing", () => {
  test("notifications go to their audience, filtered by each connection's opt-outs only", async () => {
    const { server, threads } = setup();
    const a = await rawPeer(server);
    const b = await rawPeer(server);
    await a.handshake(["item/agentMessage/delta", "not/a/real/method"]);
    await b.handshake();
    a.send({ id: 1, method: "thread/start", params: { cwd: "/tmp" } });
    const thread = ((await a.response(1)).result as { thread: { id: string } }).thread;
    await b.next((m) => m.method === "thread/started");
    a.send({ id: 2, method: "turn/start", params: { threadId: thread.id, text: "hi" } });
    await a.response(2);
    await a.next((m) => m.method === "turn/completed");
    await b.next((m) => m.method === "thread/turn/completed");
    expect(a.received.some((m) => "method" in m && m.method === "item/agentMessage/delta")).toBe(false);
    expect(a.received.some((m) => "method" in m && m.method === "item/completed")).toBe(true);
    // b is no subscriber: it gets the broadcast, not the turn's stream
    expect(b.received.some((m) => "method" in m && m.method === "turn/completed")).toBe(false);
    expect(threads.threads.get(thread.id)!.subscribers).toEqual([expect.stringMatching(/^c/)]);
  });

  test("a plain turn's notifications arrive in the spec's order", async () => {
    const { server } = setup();
    const a = await rawPeer(server);
    await a.handshake();
    a.send({ id: 1, method: "thread/start", params: { cwd: "/tmp" } });
    const thread = ((await a.response(1)).result as { thread: { id: string } }).thread;
    a.send({ id: 2, method: "turn/start", params: { threadId: thread.id, text: "hi" } });
    await a.next((m) => m.method === "turn/completed");
    const order = a.received
      .filter((m) => "method" in m && String(m.method).match(/^(turn|item)\//))
      .map((m) => (m as { method: string }).method);
    expect(order).toEqual([
      "turn/started",
      "item/started",
      "item/completed",
      "item/started",
      "item/agentMessage/delta",
      "item/completed",
      "turn/completed",
    ]);
  });

  test("server requests carry ids, answers settle them, and cancel sends serverRequest/cancelled", async () => {
    const { server, threads } = setup();
    const a = await rawPeer(server);
    await a.handshake();
    const connectionId = [...server.connections][0]!.id;
    const first = threads.port!.requestApproval(connectionId, {
      threadId: "t1",
      turnId: "u1",
      itemId: "i1",
      toolName: "bash",
      input: { command: "ls" },
      decisions: ["accept", "decline"],
    });
    const request = await a.next((m) => m.method === "item/toolCall/requestApproval");
    a.send({ id: request.id, result: { decision: "accept" } });
    expect(await first.response).toEqual({ decision: "accept" });

    const second = threads.port!.requestApproval(connectionId, {
      threadId: "t1",
      turnId: "u1",
      itemId: "i2",
      toolName: "bash",
      decisions: ["accept"],
    });
    const request2 = await a.next((m) => m.method === "item/toolCall/requestApproval" && m.id !== request.id);
    second.cancel();
    const cancelled = await a.next((m) => m.method === "serverRequest/cancelled");
    expect(cancelled.params).toEqual({ threadId: "t1", requestId: request2.id });
    await expect(second.response).rejects.toBeDefined();
  });

  test("opting out never filters server requests or responses", async () => {
    const { server, threads } = setup();
    const a = await rawPeer(server);
    await a.handshake(["item/toolCall/requestApproval", "serverRequest/cancelled"]);
    const out = threads.port!.requestApproval([...server.connections][0]!.id, {
      threadId: "t1",
      turnId: "u1",
      itemId: "i1",
      toolName: "bash",
      decisions: ["accept"],
    });
    const request = await a.next((m) => m.method === "item/toolCall/requestApproval");
    a.send({ id: request.id, result: { decision: "accept" } });
    expect(await out.response).toEqual({ decision: "accept" });
    out.cancel();
    a.send({ id: 7, method: "server/diagnostics", params: {} });
    await a.response(7);
    expect(a.received.some((m) => "method" in m && m.method === "serverRequest/cancelled")).toBe(false);
  });

  test("a malformed approval answer counts as decline", async () => {
    const { server, threads } = setup();
    const a = await rawPeer(server);
    await a.handshake();
    const out = threads.port!.requestApproval([...server.connections][0]!.id, {
      threadId: "t1",
      turnId: "u1",
      itemId: "i1",
      toolName: "bash",
      decisions: ["accept"],
    });
    const request = await a.next((m) => m.method === "item/toolCall/requestApproval");
    a.send({ id: request.id, result: { decision: "acceptEverythingForever" } });
    expect(await out.response).toEqual({ decision: "decline" });
  });

  test("closing a connection tells the manager and rejects its open server requests", async () => {
    const { server, threads } = setup();
    const a = await rawPeer(server);
    await a.handshake();
    const id = [...server.connections][0]!.id;
    const out = threads.port!.requestApproval(id, {
      threadId: "t",
      turnId: "u",
      itemId: "i",
      toolName: "bash",
      decisions: ["accept"],
    });
    await a.next((m) => m.method === "item/toolCall/requestApproval");
    await a.transport.close();
    expect(threads.closedConnections).toEqual([id]);
    await expect(out.response).rejects.toBeDefined();
    expect(server.connections.size).toBe(0);
  });

  test("large items become payload references that read back byte-exact", async () => {
    const { server } = setup();
    const a = await rawPeer(server);
    await a.handshake();
    a.send({ id: 1, method: "thread/start", params: { cwd: "/tmp" } });
    const thread = ((await a.response(1)).result as { thread: { id: string } }).thread;
    a.send({ id: 2, method: "turn/start", params: { threadId: thread.id, text: "big:200000" } });
    const completed = await a.next(
      (m) =>
        m.method === "item/completed" && (m.params as { item: { type: string } }).item.type !== "userMessage",
    );
    const ref = (completed.params as { item: { type: string; id: string; byteLength: number } }).item;
    expect(ref.type).toBe("payloadRef");
    let offset = 0;
    const parts: Buffer[] = [];
    for (let i = 10; ; i++) {
      a.send({ id: i, method: "payload/read", params: { id: ref.id, offset } });
      const chunk = (await a.response(i)).result as { data: string; nextOffset?: number; eof: boolean };
      parts.push(Buffer.from(chunk.data, "base64"));
      if (chunk.eof) break;
      offset = chunk.nextOffset!;
    }
    const item = JSON.parse(Buffer.concat(parts).toString("utf8")) as ThreadItem;
    expect(item.type === "agentMessage" && item.text.length).toBe(200_000);
    a.send({ id: 99, method: "payload/read", params: { id: "../../etc/passwd", offset: 0 } });
    expect(errorCode(await a.response(99))).toBe("payloadNotFound");
    a.send({ id: 100, method: "payload/read", params: { id: ref.id, offset: ref.byteLength + 1 } });
    expect(errorCode(await a.response(100))).toBe("invalidParams");
  });

  test("history pages are held to 1 MiB including the envelope", async () => {
    const { server, threads } = setup();
    const a = await rawPeer(server);
    await a.handshake();
    a.send({ id: 1, method: "thread/start", params: { cwd: "/tmp" } });
    const thread = ((await a.response(1)).result as { thread: { id: string } }).thread;
    // 50 turns of ~60 KiB each: each fits inline, together they do not
    const turns = Array.from({ length: 50 }, (_, i) => ({
      id: `turn${i}`,
      status: "completed" as const,
      startedAt: i,
      items: [{ id: "1", type: "agentMessage" as const, text: "y".repeat(60_000) }],
    }));
    threads.readResult = { thread: threads.threads.get(thread.id)!.thread, turns };
    a.send({ id: 2, method: "thread/read", params: { threadId: thread.id } });
    const response = await a.response(2);
    expect(Buffer.byteLength(JSON.stringify(response))).toBeLessThanOrEqual(1024 * 1024);
    const result = response.result as { turns: { type?: string; id: string }[] };
    expect(result.turns.length).toBe(50);
    expect(result.turns.some((t) => t.type === "payloadRef")).toBe(true);
    expect(result.turns.some((t) => t.type === undefined)).toBe(true);
  });

  test("list responses are held to 1 MiB by asking the manager for fewer rows", async () => {
    const { server, threads } = setup();
    const a = await rawPeer(server);
    await a.handshake();
    const now = new Date().toISOString();
    threads.extraSummaries = Array.from({ length: 500 }, (_, i) => ({
      id: `s${i}`,
      cwd: "/tmp",
      title: "t".repeat(4000),
      createdAt: now,
      updatedAt: now,
      archived: false,
      status: { type: "notLoaded" as const },
    }));
    a.send({ id: 1, method: "thread/list", params: { limit: 500 } });
    const response = await a.response(1);
    expect(Buffer.byteLength(JSON.stringify(response))).toBeLessThanOrEqual(1024 * 1024);
    const result = response.result as { threads: unknown[]; nextCursor?: string };
    expect(result.threads.length).toBeGreaterThan(200);
    expect(result.threads.length).toBeLessThan(500);
    expect(result.nextCursor).toBe(`after:${result.threads.length}`);
  });

  test("server/diagnostics reports every field", async () => {
    const { server } = setup();
    const a = await rawPeer(server);
    await a.handshake();
    a.send({ id: 1, method: "server/diagnostics", params: {} });
    const result = (await a.response(1)).result as Record<string, number>;
    expect(Object.keys(result).sort()).toEqual(
      [
        "rssBytes",
        "heapBytes",
        "loadedThreads",
        "loadingThreads",
        "payloadFiles",
        "payloadBytes",
        "inactiveFactories",
        "uptimeMs",
        "listingFilesOpened",
        "listingBytesScanned",
      ].sort(),
    );
    expect(result.rssBytes).toBeGreaterThan(0);
  });

  test("config methods without a config service are internal, and command/list routes to the manager", async () => {
    const { server } = setup();
    const a = await rawPeer(server);
    await a.handshake();
    a.send({ id: 1, method: "config/read", params: {} });
    expect(errorCode(await a.response(1))).toBe("internal");
    a.send({ id: 2, method: "command/list", params: { cwd: "/tmp" } });
    expect((await a.response(2)).result).toEqual({ commands: [{ name: "review", description: "Review" }] });
  });
});

describe("shutdown", () => {
  test("unloads every thread, answers hung accepted requests with shuttingDown, refuses new ones", async () => {
    const { server, threads } = setup({ shutdownAnswerMs: 200 });
    const a = await rawPeer(server);
    await a.handshake();
    threads.hang.add("model/list");
    a.send({ id: 1, method: "model/list", params: {} });
    const done = server.shutdown();
    a.send({ id: 2, method: "thread/list", params: {} });
    expect(errorCode(await a.response(2))).toBe("shuttingDown");
    await done;
    expect(errorCode(await a.response(1))).toBe("shuttingDown");
    expect(threads.closeAllCalls).toBe(1);
  });

  test("past the in-flight limit a request is answered overloaded with retryAfterMs at once, per connection", async () => {
    const { server, threads } = setup({ maxRequestsInFlight: 2, shutdownAnswerMs: 50 });
    const peer = await rawPeer(server);
    await peer.handshake();
    threads.hang.add("model/list");
    peer.send({ id: 1, method: "model/list", params: {} });
    peer.send({ id: 2, method: "model/list", params: {} });
    peer.send({ id: 3, method: "thread/list", params: {} });
    const refused = await peer.response(3);
    expect(refused.error).toEqual({
      code: "overloaded",
      message: "too many requests in flight on this connection; retry in 1000 ms",
      data: { retryAfterMs: 1000 },
    });
    // another connection has its own budget
    const other = await rawPeer(server);
    await other.handshake();
    other.send({ id: 1, method: "thread/list", params: {} });
    expect(errorCode(await other.response(1))).toBeUndefined();
  });

  test("a result arriving after the nine-second shuttingDown answer never publishes a second response", async () => {
    const { server, threads } = setup({ shutdownAnswerMs: 50 });
    const a = await rawPeer(server);
    await a.handshake();
    threads.hold.add("model/list");
    a.send({ id: 1, method: "model/list", params: {} });
    await server.shutdown();
    expect(errorCode(await a.response(1))).toBe("shuttingDown");
    threads.releaseHeld();
    // a later round trip: the late result had its chance to go out before this answer
    a.send({ id: 2, method: "model/list", params: {} });
    expect(errorCode(await a.response(2))).toBe("shuttingDown");
    expect(a.received.filter((m) => (m as { id?: unknown }).id === 1).length).toBe(1);
  });

  test("duplicate and immediate errors under an in-flight id leave the accepted request's answer alone", async () => {
    const { server, threads } = setup();
    const a = await rawPeer(server);
    await a.handshake();
    threads.hold.add("model/list");
    a.send({ id: 7, method: "model/list", params: {} });
    a.send({ id: 7, method: "no/such", params: {} });
    a.send({ id: 7, method: "thread/read", params: { threadId: 5 } });
    a.send({ id: 8, method: "server/diagnostics", params: {} });
    await a.response(8);
    const early = a.received.filter((m) => (m as { id?: unknown }).id === 7);
    expect(early.map((m) => errorCode(m as unknown as Record<string, unknown>))).toEqual([
      "invalidRequest",
      "invalidRequest",
    ]);
    threads.releaseHeld();
    const answer = await a.next((m) => m.id === 7 && "result" in m);
    expect(answer.result).toEqual({ models: [] });
  });

  test("accepted requests that finish during shutdown get their real answers", async () => {
    const { server } = setup({ shutdownAnswerMs: 5_000 });
    const a = await rawPeer(server);
    await a.handshake();
    a.send({ id: 1, method: "model/list", params: {} });
    await server.shutdown();
    expect((await a.response(1)).result).toEqual({ models: [] });
  });
});

describe("initialize waits for the server to be ready", () => {
  test("the answer waits for `ready`; what the client pipelined meanwhile runs after it, in order", async () => {
    const threads = new FakeThreadManager();
    const { promise: ready, resolve } = Promise.withResolvers<void>();
    const server = createAppServer({ threads, ready });
    servers.push(server);
    const peer = await rawPeer(server);
    peer.send({ id: 1, method: "initialize", params: { clientInfo: { name: "t" } } });
    peer.send({ method: "initialized", params: {} });
    peer.send({ id: 2, method: "model/list", params: {} });
    const order: unknown[] = [];
    const first = peer.response(1).then((m) => order.push(m.id));
    const second = peer.response(2).then((m) => {
      order.push(m.id);
      return m;
    });
    // The in-memory transport delivers synchronously, so the server has read all three
    // lines; once every pending microtask has run (a setImmediate turn), nothing may be answered.
    await new Promise((settle) => setImmediate(settle));
    expect(peer.received.filter((m) => "id" in m)).toEqual([]);
    expect(order).toEqual([]);
    resolve();
    await first;
    expect((await second).result).toEqual({ models: [] });
    expect(order).toEqual([1, 2]);
  });

  test("a failed load still answers initialize; requests then get their own errors", async () => {
    const threads = new FakeThreadManager();
    const ready = Promise.reject(new Error("the host did not load"));
    const server = createAppServer({ threads, ready });
    servers.push(server);
    const peer = await rawPeer(server);
    await peer.handshake();
    peer.send({ id: 2, method: "model/list", params: {} });
    expect((await peer.response(2)).result).toEqual({ models: [] });
  });
});
