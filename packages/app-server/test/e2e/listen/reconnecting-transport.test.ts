/**
 * `ReconnectingTransport` against a real ws:// listener child, through a TCP proxy the
 * test can cut: the connection drops mid-turn (both ends see a reset, as on a network
 * failure), the transport reconnects through the proxy, and the client sees the whole
 * turn: every delta once, in order, with no gap in the thread's sequence numbers.
 */
import { describe, expect, test } from "bun:test";
import { AppServerClient, ReconnectingTransport, WebSocketTransport } from "@knightcode/app-server-protocol";
import { startCuttableProxy, textReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, MOCK_MODEL, nextNotification } from "../harness.ts";
import { startListener } from "./listener-harness.ts";

describe("ReconnectingTransport", () => {
  test(
    "a connection cut mid-turn reconnects and resumes: every delta once, in order, seq without gaps",
    async () => {
      await using server = await startListener("ws");
      const proxy = await startCuttableProxy(Number(new URL(server.url.replace(/^ws/, "http")).port));
      try {
        const reconnected = Promise.withResolvers<void>();
        const gaps: string[] = [];
        const transport = new ReconnectingTransport({
          open: async () => {
            const socket = new WebSocketTransport(`ws://127.0.0.1:${proxy.port}`, { token: server.token! });
            await socket.start();
            return socket;
          },
          retryDelaysMs: [20],
          onReconnected: () => reconnected.resolve(),
          onGap: (threadId) => gaps.push(threadId),
        });
        const client = new AppServerClient(transport);
        await client.connect();
        await client.initialize({ clientInfo: { name: "reconnecting", version: "1" } });
        const { thread } = await client.request("thread/start", {
          cwd: server.agent.cwd,
          approvalMode: "fullAccess",
          model: MOCK_MODEL,
        });
        const seqs: number[] = [];
        const deltas: string[] = [];
        client.onNotification("*", (method, params, meta) => {
          if ((params as { threadId?: string }).threadId !== thread.id || meta.seq === undefined) return;
          seqs.push(meta.seq);
          if (method === "item/agentMessage/delta") deltas.push((params as { delta: string }).delta);
        });
        const resume = Promise.withResolvers<void>();
        const text = Array.from({ length: 30 }, (_, i) => `d${i} `).join("");
        server.mock.enqueue({ ...textReply(text, 30), pauseAfterEvents: 5, resumeWhen: resume.promise });
        const firstDelta = nextNotification(client, "item/agentMessage/delta");
        const completed = nextNotification<{ turn: { status: string } }>(client, "turn/completed");
        await client.request("turn/start", { threadId: thread.id, text: "go" });
        await firstDelta;
        proxy.cut();
        resume.resolve();
        expect((await completed).turn.status).toBe("completed");
        // the missed part arrives before the resume's answer, so the turn can end first
        await reconnected.promise;
        expect(gaps).toEqual([]);
        expect(deltas.join("")).toBe(text);
        expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
        // the reconnected client goes on as before
        expect((await client.request("thread/list", {})).threads.map((t) => t.id)).toContain(thread.id);
        await client.close();
      } finally {
        await proxy.close();
      }
    },
    E2E_TIMEOUT,
  );
});
