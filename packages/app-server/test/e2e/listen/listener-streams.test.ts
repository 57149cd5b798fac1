/**
 * Streams over each listener with real children: a client that stops reading never
 * holds another's stream; a client that disconnects mid-turn and resumes with its last
 * seq gets every missed notification exactly once, approvals included.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { AppServerClient } from "@knightcode/app-server-protocol";
import { type MockResponder, textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, MOCK_MODEL, nextNotification, startThread } from "../harness.ts";
import { LISTENER_KINDS, type ListenerServer, startListener } from "./listener-harness.ts";

const SUBSCRIBER = join(import.meta.dir, "fixtures", "subscriber.ts");

/** Every notification of one thread a client receives, with its seq, in arrival order. */
function threadLog(client: AppServerClient, threadId: string) {
  const seen: { method: string; params: unknown; seq: number | undefined }[] = [];
  client.onNotification("*", (method, params, meta) => {
    if ((params as { threadId?: string } | undefined)?.threadId === threadId)
      seen.push({ method, params, seq: meta.seq });
  });
  return seen;
}

/** Starts the stopped-subscriber fixture and resolves once it has subscribed. */
async function stoppedSubscriber(server: ListenerServer, threadId: string) {
  const child = Bun.spawn([process.execPath, SUBSCRIBER, server.url, threadId], {
    env: {
      ...process.env,
      ...(server.token === undefined ? {} : { SUBSCRIBER_TOKEN: server.token }),
      ...(server.ca === undefined ? {} : { SUBSCRIBER_CA: server.ca }),
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toBe("subscribed\n");
  child.kill("SIGSTOP");
  return child;
}

/**
 * What the reconnect tests share: a first client starts a thread and a turn the mock
 * holds (the mock is given `replies`), waits for `until` on that thread and disconnects.
 * `log` is every notification of the thread that client received.
 */
async function leaveMidTurn(
  server: ListenerServer,
  options: { approvalMode: "ask" | "fullAccess"; text: string; until: string; replies: MockResponder[] },
) {
  const first = await server.connect();
  const started = await first.client.request("thread/start", {
    cwd: server.agent.cwd,
    approvalMode: options.approvalMode,
    model: MOCK_MODEL,
  });
  const threadId = started.thread.id;
  server.mock.enqueue(...options.replies);
  const log = threadLog(first.client, threadId);
  const reached = nextNotification(
    first.client,
    options.until,
    (p: { threadId: string }) => p.threadId === threadId,
  );
  await first.client.request("turn/start", { threadId, text: options.text });
  await reached;
  await first.close();
  await first.closed;
  return { started, threadId, log };
}

for (const kind of LISTENER_KINDS) {
  describe(`${kind}:// streams`, () => {
    test(
      "two clients on one thread: one stops reading, the other's stream goes on to turn/completed",
      async () => {
        await using server = await startListener(kind);
        const { client } = await server.connect();
        const { threadId } = await startThread(client, server.agent.cwd);
        const stopped = await stoppedSubscriber(server, threadId);
        try {
          // far more than the socket buffers and the 8 MiB high-water mark hold
          const piece = "x".repeat(16 * 1024);
          const pieces = 1200;
          server.mock.enqueue(textReply(piece.repeat(pieces), pieces));
          let received = 0;
          client.onNotification("item/agentMessage/delta", (p) => {
            received += p.delta.length;
          });
          const completed = nextNotification<{ threadId: string; turn: { status: string } }>(
            client,
            "turn/completed",
            (p) => p.threadId === threadId,
            50_000,
          );
          await client.request("turn/start", { threadId, text: "stream a lot" });
          expect((await completed).turn.status).toBe("completed");
          expect(received).toBe(piece.length * pieces);
        } finally {
          stopped.kill("SIGKILL");
          await stopped.exited;
        }
      },
      E2E_TIMEOUT,
    );

    test(
      "a client that disconnects mid-turn and resumes with its last seq gets every missed notification exactly once",
      async () => {
        await using server = await startListener(kind);
        const resume = Promise.withResolvers<void>();
        const text = Array.from({ length: 40 }, (_, i) => `w${i} `).join("");
        const {
          started,
          threadId,
          log: before,
        } = await leaveMidTurn(server, {
          approvalMode: "fullAccess",
          text: "go",
          until: "item/agentMessage/delta",
          replies: [{ ...textReply(text, 40), pauseAfterEvents: 6, resumeWhen: resume.promise }],
        });
        expect(started.stream?.seq).toBeNumber();
        const streamId = started.stream!.id;
        // someone still watching the sidebar sees the turn end while the first client is away
        const observer = await server.connect();
        const ended = nextNotification<{ turn: { threadId?: string; status: string } }>(
          observer.client,
          "thread/turn/completed",
        );
        resume.resolve();
        expect((await ended).turn.status).toBe("completed");

        const lastSeq = Math.max(...before.map((n) => n.seq ?? 0));
        const again = await server.connect();
        const after = threadLog(again.client, threadId);
        const resumed = await again.client.request("thread/resume", {
          threadId,
          replay: { streamId, afterSeq: lastSeq },
        });
        expect(resumed.replay).toBe("replayed");
        const seqs = after.map((n) => n.seq);
        // every number after the last one seen, once each, in order, up to where the stream stood
        expect(seqs).toEqual(
          Array.from({ length: resumed.stream!.seq - lastSeq }, (_, i) => lastSeq + 1 + i),
        );
        expect(after.map((n) => n.method)).toContain("turn/completed");
        const deltas = (log: typeof before) =>
          log
            .filter((n) => n.method === "item/agentMessage/delta")
            .map((n) => (n.params as { delta: string }).delta);
        expect([...deltas(before), ...deltas(after)].join("")).toBe(text);

        // a stream that has moved on too far, or another stream, says gone and gives the snapshot
        const stale = await again.client.request("thread/resume", {
          threadId,
          replay: { streamId: "not-this-stream", afterSeq: 1 },
        });
        expect(stale.replay).toBe("gone");
        expect(stale.turns.length).toBe(1);
      },
      E2E_TIMEOUT,
    );

    test(
      "an approval asked while its client was away waits, and the reconnecting client is asked it",
      async () => {
        await using server = await startListener(kind);
        const marker = join(server.agent.cwd, "ran.txt");
        const resume = Promise.withResolvers<void>();
        const { started, threadId, log } = await leaveMidTurn(server, {
          approvalMode: "ask",
          text: "run it",
          until: "turn/started",
          replies: [
            {
              ...toolCallReply({ name: "bash", arguments: { command: `echo ran > '${marker}'` } }),
              pauseAfterEvents: 1,
              resumeWhen: resume.promise,
            },
            textReply("done"),
          ],
        });
        const observer = await server.connect();
        const waiting = nextNotification<{
          threadId: string;
          status: { type: string; waitingOn?: string[] };
        }>(
          observer.client,
          "thread/status/changed",
          (p) => p.threadId === threadId && p.status.waitingOn?.includes("approval") === true,
        );
        resume.resolve();
        await waiting;

        const again = await server.connect();
        const asked = Promise.withResolvers<string>();
        again.client.onRequest("item/toolCall/requestApproval", (params) => {
          asked.resolve(params.toolName);
          return { decision: "accept" };
        });
        const completed = nextNotification<{ threadId: string; turn: { status: string } }>(
          again.client,
          "turn/completed",
          (p) => p.threadId === threadId,
        );
        const lastSeq = Math.max(...log.map((n) => n.seq ?? 0));
        const resumed = await again.client.request("thread/resume", {
          threadId,
          replay: { streamId: started.stream!.id, afterSeq: lastSeq },
        });
        expect(resumed.replay).toBe("replayed");
        expect(await asked.promise).toBe("bash");
        expect((await completed).turn.status).toBe("completed");
        expect(await Bun.file(marker).text()).toBe("ran\n");
      },
      E2E_TIMEOUT,
    );
  });
}

describe("a replay buffer set small", () => {
  test(
    "--replay-notifications 5: a gap longer than the buffer is gone, and the snapshot has the whole turn",
    async () => {
      await using server = await startListener("ws", {
        args: ["--replay-notifications", "5", "--replay-bytes", "100000"],
      });
      const resume = Promise.withResolvers<void>();
      const text = Array.from({ length: 30 }, (_, i) => `w${i} `).join("");
      const { started, threadId, log } = await leaveMidTurn(server, {
        approvalMode: "fullAccess",
        text: "go",
        until: "item/agentMessage/delta",
        replies: [{ ...textReply(text, 30), pauseAfterEvents: 3, resumeWhen: resume.promise }],
      });
      const observer = await server.connect();
      const ended = nextNotification(observer.client, "thread/turn/completed");
      resume.resolve();
      await ended;
      const again = await server.connect();
      const after = threadLog(again.client, threadId);
      const lastSeq = Math.max(...log.map((n) => n.seq ?? 0));
      const resumed = await again.client.request("thread/resume", {
        threadId,
        replay: { streamId: started.stream!.id, afterSeq: lastSeq },
      });
      expect(resumed.replay).toBe("gone");
      expect(after.filter((n) => n.seq !== undefined && n.seq <= resumed.stream!.seq)).toEqual([]);
      const turn = resumed.turns.at(-1);
      const agent =
        turn !== undefined && "items" in turn
          ? turn.items?.find((i) => i.type === "agentMessage")
          : undefined;
      expect(agent !== undefined && agent.type === "agentMessage" && agent.text).toBe(text);
    },
    E2E_TIMEOUT,
  );
});
