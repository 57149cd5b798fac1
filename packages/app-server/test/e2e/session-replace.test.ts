/**
 * pi's `ctx.newSession()` and `ctx.fork(entryId)` from an extension command, over the
 * server's replace paths: the caller's client gets `thread/replaced` and the new thread,
 * `setup` writes to the new session before its first turn, `withSession` is bound to the
 * new session, and a `session_before_*` guard still refuses (the command sees
 * `{cancelled: true}`, nothing moves).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type {
  AppServerClient,
  ThreadReplacedNotification,
  TurnCompletedNotification,
  Warning,
} from "@knightcode/app-server-protocol";
import { textReply } from "@knightcode/testkit";
import {
  E2E_TIMEOUT,
  type E2EServer,
  nextNotification,
  recordNotifications,
  startThread,
  TARGETS,
} from "./harness.ts";

// pi-typed; the terminal test (apps/cli) uses it too
const REPLACER = join(import.meta.dir, "fixtures", "extensions", "session-replacer.ts");
// logs session_start/session_shutdown with pi's session files
const LIFECYCLE = join(import.meta.dir, "fixtures", "extensions", "lifecycle-log.ts");

type Entry = Record<string, unknown> & { type: string; id: string };

function entries(path: string): Entry[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => JSON.parse(l) as Entry);
}

/** What lifecycle-log.ts logged in a transcript, in order. */
function lifecycle(path: string): unknown[] {
  return entries(path)
    .filter((e) => e.type === "custom" && e.customType === "lifecycle")
    .map((e) => e.data);
}

async function turn(client: AppServerClient, threadId: string, text: string): Promise<void> {
  const done = nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
  await client.request("turn/start", { threadId, text });
  await done;
}

const replaced = (server: E2EServer, oldThreadId: string) =>
  nextNotification<ThreadReplacedNotification>(
    server.client,
    "thread/replaced",
    (p) => p.oldThreadId === oldThreadId,
  );

for (const target of TARGETS) {
  describe(`[${target.name}] ctx.newSession and ctx.fork`, () => {
    test(
      "/clear calling ctx.newSession() moves the client to a new thread that setup wrote to before its first turn",
      async () => {
        await using server = await target.start({ extensions: [REPLACER, LIFECYCLE] });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        server.mock.enqueue(textReply("first answer"), textReply("fresh answer"));
        await turn(server.client, threadId, "old question");

        const moved = replaced(server, threadId);
        const answer = await server.client.request("turn/start", { threadId, text: "/clear" });
        const { thread } = await moved;
        expect(thread.id).not.toBe(threadId);
        expect(answer).toMatchObject({ status: "handled", threadId: thread.id });
        expect(entries(thread.path!)).toContainEqual(
          expect.objectContaining({
            type: "custom_message",
            customType: "handoff",
            content: "CARRIED OVER NOTE",
          }),
        );
        expect(JSON.parse(readFileSync(join(server.agent.cwd, "with-session.json"), "utf8"))).toEqual({
          id: thread.id,
        });
        expect(entries(path)).toContainEqual(
          expect.objectContaining({ customType: "clear-result", data: { cancelled: false } }),
        );

        await turn(server.client, thread.id, "new question");
        const body = JSON.stringify(server.mock.requests.at(-1)!.body);
        expect(body).toContain("CARRIED OVER NOTE");
        expect(body).toContain("new question");
        expect(body).not.toContain("old question");
        // pi's session files: the old thread's shutdown names the new one, the new one's start the old
        expect(lifecycle(path)).toContainEqual({
          event: "session_shutdown",
          reason: "new",
          targetSessionFile: thread.path,
        });
        expect(lifecycle(thread.path!)).toEqual([
          { event: "session_start", reason: "new", previousSessionFile: path },
        ]);
      },
      E2E_TIMEOUT,
    );

    test(
      "a session_before_switch guard refuses: newSession answers cancelled and the client stays",
      async () => {
        await using server = await target.start({ extensions: [REPLACER] });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        writeFileSync(join(server.agent.cwd, "locked"), "");
        const seen = recordNotifications(server.client);
        const answer = await server.client.request("turn/start", { threadId, text: "/clear" });
        expect(answer).toMatchObject({ status: "handled", threadId });
        expect(entries(path)).toContainEqual(
          expect.objectContaining({ customType: "clear-result", data: { cancelled: true } }),
        );
        expect(seen.map((n) => n.method)).not.toContain("thread/replaced");
        expect(seen.map((n) => n.method)).not.toContain("thread/started");
      },
      E2E_TIMEOUT,
    );

    test(
      "ctx.fork(entryId) forks at that entry: the new thread holds the branch up to it, the guard saw the entry",
      async () => {
        await using server = await target.start({ extensions: [REPLACER, LIFECYCLE] });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        server.mock.enqueue(textReply("reply one"), textReply("reply two"), textReply("reply three"));
        await turn(server.client, threadId, "question one");
        await turn(server.client, threadId, "question two");
        const firstReply = entries(path).find(
          (e) => e.type === "message" && (e.message as { role: string }).role === "assistant",
        )!;

        const moved = replaced(server, threadId);
        const answer = await server.client.request("turn/start", {
          threadId,
          text: `/branch-here ${firstReply.id}`,
        });
        const { thread } = await moved;
        expect(answer).toMatchObject({ status: "handled", threadId: thread.id });
        expect(entries(path)).toContainEqual(
          expect.objectContaining({
            customType: "fork-asked",
            data: { entryId: firstReply.id, position: "at" },
          }),
        );
        const forked = JSON.stringify(entries(thread.path!));
        expect(forked).toContain("reply one");
        expect(forked).not.toContain("question two");

        await turn(server.client, thread.id, "question three");
        const body = JSON.stringify(server.mock.requests.at(-1)!.body);
        expect(body).toContain("reply one");
        expect(body).not.toContain("reply two");
        expect(lifecycle(path)).toContainEqual({
          event: "session_shutdown",
          reason: "fork",
          targetSessionFile: thread.path,
        });
        // the fork copied the source's own startup entry; its start names the source
        expect(lifecycle(thread.path!).at(-1)).toEqual({
          event: "session_start",
          reason: "fork",
          previousSessionFile: path,
        });
      },
      E2E_TIMEOUT,
    );

    test(
      "ctx.fork at an entry that does not exist fails the command (invalidParams message) and moves nothing",
      async () => {
        await using server = await target.start({ extensions: [REPLACER] });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const seen = recordNotifications(server.client);
        const warned = nextNotification<Warning & { threadId: string }>(server.client, "warning", (w) =>
          w.message.includes("/branch-here failed"),
        );
        const answer = await server.client.request("turn/start", { threadId, text: "/branch-here nope" });
        expect(answer).toMatchObject({ status: "handled", threadId });
        expect((await warned).message).toContain(`No entry nope in thread ${threadId} to fork at`);
        expect(seen.map((n) => n.method)).not.toContain("thread/replaced");
      },
      E2E_TIMEOUT,
    );
  });
}
