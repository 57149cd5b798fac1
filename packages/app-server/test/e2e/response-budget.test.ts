/**
 * History and list responses stay within 1 MiB including the envelope, measured on the
 * real serialized line (id included), on both transports: an id near 1 MiB makes inline
 * turns references and listings shorter (with a cursor that continues them); huge queued
 * texts are shortened in a `thread/resume` result and the full queue follows as
 * `turn/queue/updated`; an id that leaves room for no valid response is refused
 * `invalidRequest` under that id.
 */
import { describe, expect, test } from "bun:test";
import type {
  Message,
  PayloadRef,
  QueueState,
  ThreadListResult,
  ThreadReadResult,
  ThreadResumeResult,
  Turn,
  TurnCompletedNotification,
} from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, type E2EServer, MOCK_MODEL, nextNotification, TARGETS } from "./harness.ts";

const LIMIT = 1_048_576;

/** The response line's bytes as the server writes it: the JSON text and its newline. */
const lineBytes = (message: Message): number => Buffer.byteLength(`${JSON.stringify(message)}\n`);

/** Sends a request with any id, bypassing the client, and resolves with its response. */
async function rawRequest(server: E2EServer, id: string, method: string, params: unknown) {
  const response = server.nextMessage((m) => m.id === id && !("method" in m), 30_000);
  server.sendRaw({ id, method, params });
  const message = await response;
  return message as Message & { id: string; result?: unknown; error?: { code: string; data?: unknown } };
}

async function threadWithTurn(server: E2EServer, text: string): Promise<string> {
  const { thread } = await server.client.request("thread/start", {
    cwd: server.agent.cwd,
    model: MOCK_MODEL,
  });
  server.mock.enqueue(textReply(text));
  const completed = nextNotification<TurnCompletedNotification>(
    server.client,
    "turn/completed",
    (p) => p.threadId === thread.id,
  );
  await server.client.request("turn/start", { threadId: thread.id, text: "hello" });
  await completed;
  return thread.id;
}

for (const target of TARGETS) {
  describe(`[${target.name}] response budget`, () => {
    test(
      "thread/read and thread/list with a request id near 1 MiB: the line stays within 1 MiB (payload references, fewer rows with a nextCursor)",
      async () => {
        await using server = await target.start();
        const threadId = await threadWithTurn(server, "w".repeat(60_000));
        const plain = await server.client.request("thread/read", { threadId });
        const inline = plain.turns[0] as Turn;
        expect(inline.id).toBeDefined();
        // the inline turn (~60 KB) does not fit next to this id; its reference does
        const readId = "r".repeat(LIMIT - 40_000);
        const read = await rawRequest(server, readId, "thread/read", { threadId });
        expect(lineBytes(read)).toBeLessThanOrEqual(LIMIT);
        const page = read.result as ThreadReadResult;
        expect(page.thread.id).toBe(threadId);
        expect(page.turns.length).toBe(plain.turns.length);
        const ref = page.turns[0] as PayloadRef;
        expect(ref.type).toBe("payloadRef");
        expect(await server.client.resolveTurn(ref)).toEqual(inline);

        // a listing one byte too long next to its id is fetched again with fewer rows
        for (let i = 0; i < 3; i++)
          // named: a thread only lists once it has a file
          await server.client.request("thread/start", {
            cwd: server.agent.cwd,
            model: MOCK_MODEL,
            name: "row",
          });
        const all = await server.client.request("thread/list", {});
        expect(all.threads.length).toBe(4);
        expect(all.nextCursor).toBeUndefined();
        const resultBytes = Buffer.byteLength(JSON.stringify(all));
        const envelope = Buffer.byteLength(JSON.stringify({ id: "", result: 0 }));
        const listId = "l".repeat(LIMIT - resultBytes - envelope + 1);
        const listed = await rawRequest(server, listId, "thread/list", {});
        expect(lineBytes(listed)).toBeLessThanOrEqual(LIMIT);
        const first = listed.result as ThreadListResult;
        expect(first.threads.length).toBeGreaterThan(0);
        expect(first.threads.length).toBeLessThan(4);
        expect(first.nextCursor).toBeString();
        // the cursor continues the listing: every thread is seen once
        const rest = await server.client.request("thread/list", { cursor: first.nextCursor! });
        const ids = [...first.threads, ...rest.threads].map((t) => t.id).sort();
        expect(ids).toEqual(all.threads.map((t) => t.id).sort());
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/read, thread/resume and thread/list: an id so large that no valid response fits answers invalidRequest under that id",
      async () => {
        await using server = await target.start();
        const threadId = await threadWithTurn(server, "short reply");
        const calls: [string, unknown][] = [
          ["thread/read", { threadId }],
          ["thread/resume", { threadId }],
          ["thread/list", {}],
        ];
        for (const [method, params] of calls) {
          // the id alone takes the whole megabyte
          const huge = `${method}:${"h".repeat(LIMIT)}`;
          const refused = await rawRequest(server, huge, method, params);
          expect(refused.id).toBe(huge);
          expect(refused.error?.code).toBe("invalidRequest");
          expect("result" in refused).toBe(false);
          // 260 bytes left for the result: more than the smallest conceivable result
          // (so the manager runs), less than this thread's page: refused after measuring
          const prefix = `${method}:`;
          const near = `${prefix}${"n".repeat(LIMIT - 280 - prefix.length)}`;
          expect(Buffer.byteLength(JSON.stringify({ id: near, result: 0 }))).toBe(LIMIT - 260);
          const measured = await rawRequest(server, near, method, params);
          expect(measured.error?.code).toBe("invalidRequest");
        }
        // the connection lives on and ordinary ids are answered in full
        const page = await server.client.request("thread/read", { threadId });
        expect(page.turns.length).toBe(1);
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/resume with queued texts over 1 MiB: the response line stays within 1 MiB and the full queue follows as turn/queue/updated",
      async () => {
        await using server = await target.start();
        const { thread } = await server.client.request("thread/start", {
          cwd: server.agent.cwd,
          approvalMode: "ask",
          model: MOCK_MODEL,
        });
        // a turn held at its approval keeps the thread busy, so inputs stay queued
        server.mock.enqueue(
          toolCallReply({ name: "bash", arguments: { command: "echo held" } }),
          textReply("done"),
        );
        const asked = Promise.withResolvers<void>();
        server.client.onRequest("item/toolCall/requestApproval", () => {
          asked.resolve();
          return new Promise(() => {});
        });
        const started = nextNotification<{ turn: { id: string } }>(server.client, "turn/started");
        const completed = nextNotification<TurnCompletedNotification>(server.client, "turn/completed");
        await server.client.request("turn/start", { threadId: thread.id, text: "run it" });
        const turnId = (await started).turn.id;
        await asked.promise;
        const texts = ["a".repeat(600_000), `${"é".repeat(250_000)}😀`, "tiny"];
        for (const text of texts)
          await server.client.request("turn/queue/add", { threadId: thread.id, text });

        const before = server.received().length;
        const resumed = await rawRequest(server, "resume-queue", "thread/resume", { threadId: thread.id });
        expect(lineBytes(resumed)).toBeLessThanOrEqual(LIMIT);
        const result = resumed.result as ThreadResumeResult;
        expect(result.runningTurn?.id).toBe(turnId);
        const sent = result.queue.followUp;
        expect(sent.map((q) => q.text.length === 0 || texts.some((t) => t.startsWith(q.text)))).toEqual([
          true,
          true,
          true,
        ]);
        expect(sent.reduce((n, q) => n + q.text.length, 0)).toBeLessThan(texts.join("").length);
        expect(result.warnings.some((w) => w.source === "server" && w.message.includes("shortened"))).toBe(
          true,
        );

        // right behind the response: the whole queue, byte-exact
        const follow = (await server.nextMessage(
          (m) =>
            m.method === "turn/queue/updated" &&
            server.received().indexOf(m as unknown as Message) > server.received().indexOf(resumed),
        )) as unknown as { params: QueueState & { threadId: string } };
        const log = server.received();
        expect(log.indexOf(follow as unknown as Message)).toBe(log.indexOf(resumed) + 1);
        expect(log.indexOf(resumed)).toBeGreaterThanOrEqual(before);
        expect(follow.params.threadId).toBe(thread.id);
        expect(follow.params.followUp.map((q) => q.text)).toEqual(texts);
        expect(follow.params.followUp.map((q) => q.id)).toEqual(sent.map((q) => q.id));

        await server.client.request("turn/interrupt", { threadId: thread.id, turnId });
        await completed;
      },
      E2E_TIMEOUT,
    );
  });
}
