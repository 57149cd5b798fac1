/**
 * The method reference's errors end to end, on both transports: the common errors for
 * every method, `threadNotFound` across the thread methods, `thread/delete`'s refusals
 * (a running turn, another process owning the transcript, a hard link, a filesystem
 * failure), `invalidCursor`, `turnMismatch` and `shuttingDown`.
 */
import { describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { AppServerClient, ClientRequestMethod } from "@knightcode/app-server-protocol";
import {
  E2E_TIMEOUT,
  type E2EServer,
  errorCode,
  MOCK_MODEL,
  nextNotification,
  TARGETS,
  turnHeldAtApproval,
} from "./harness.ts";
import { failingFd, holdingFd } from "./holding-fd.ts";
import { MALFORMED, WELL_FORMED } from "./method-tables.ts";

const HOLD_TRANSCRIPT = join(import.meta.dir, "..", "support", "hold-transcript.ts");

/** Every thread method with params naming an unknown thread. */
const UNKNOWN_THREAD: [ClientRequestMethod, unknown][] = [
  ["thread/resume", { threadId: "nope" }],
  ["thread/fork", { threadId: "nope" }],
  ["thread/read", { threadId: "nope" }],
  ["thread/archive", { threadId: "nope" }],
  ["thread/unarchive", { threadId: "nope" }],
  ["thread/delete", { threadId: "nope" }],
  ["thread/settings/update", { threadId: "nope", approvalMode: "ask" }],
  ["command/list", { threadId: "nope" }],
  ["turn/start", { threadId: "nope", text: "hi" }],
  ["turn/steer", { threadId: "nope", expectedTurnId: "t", text: "hi" }],
  ["turn/interrupt", { threadId: "nope" }],
  ["turn/queue/add", { threadId: "nope", text: "hi" }],
  ["turn/queue/remove", { threadId: "nope", queueId: "q" }],
];

const request = (client: AppServerClient, method: ClientRequestMethod, params: unknown) =>
  client.request(method, params as never);

async function startThread(server: E2EServer): Promise<string> {
  const { thread } = await server.client.request("thread/start", {
    cwd: server.agent.cwd,
    approvalMode: "ask",
    model: MOCK_MODEL,
    // named, so its transcript is written at once (an unused thread has no file)
    name: "used",
  });
  return thread.id;
}

/** The transcript path the server reports for a thread (live or archived). */
async function transcriptPath(client: AppServerClient, threadId: string): Promise<string> {
  const path = (await client.request("thread/read", { threadId })).thread.path;
  if (path === undefined) throw new Error(`thread ${threadId} has no path`);
  return path;
}

/** Runs a child bun process that owns `path` through the session store until released. */
async function ownInAnotherProcess(path: string): Promise<{ release(): Promise<void> }> {
  const child = Bun.spawn([process.execPath, HOLD_TRANSCRIPT, path], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toContain("owned");
  reader.releaseLock();
  return {
    async release() {
      child.stdin.end();
      expect(await child.exited).toBe(0);
    },
  };
}

for (const target of TARGETS) {
  describe(`[${target.name}] method reference errors`, () => {
    test(
      "every method-reference method answers notInitialized before the handshake and invalidParams for malformed params",
      async () => {
        await using server = await target.start({ skipInitialize: true });
        const { client } = server;
        for (const [method, params] of Object.entries(WELL_FORMED)) {
          expect([method, await errorCode(request(client, method as ClientRequestMethod, params))]).toEqual([
            method,
            "notInitialized",
          ]);
        }
        await client.initialize({ clientInfo: { name: "e2e" } });
        for (const [method, params] of Object.entries(MALFORMED)) {
          expect([method, await errorCode(request(client, method as ClientRequestMethod, params))]).toEqual([
            method,
            "invalidParams",
          ]);
        }
      },
      E2E_TIMEOUT,
    );

    test(
      "thread and turn methods on an unknown thread return threadNotFound",
      async () => {
        await using server = await target.start();
        for (const [method, params] of UNKNOWN_THREAD) {
          expect([method, await errorCode(request(server.client, method, params))]).toEqual([
            method,
            "threadNotFound",
          ]);
        }
      },
      E2E_TIMEOUT,
    );

    test(
      "invalidCursor: thread/read, thread/resume and thread/list refuse malformed and foreign cursors",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const threadId = await startThread(server);
        expect(await errorCode(client.request("thread/read", { threadId, cursor: "garbage" }))).toBe(
          "invalidCursor",
        );
        expect(await errorCode(client.request("thread/resume", { threadId, cursor: "h1.e30" }))).toBe(
          "invalidCursor",
        );
        expect(await errorCode(client.request("thread/list", { cursor: "garbage" }))).toBe("invalidCursor");
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/delete: turnInProgress for an archived thread with a running turn; turn/steer and turn/interrupt with a stale turn ID return turnMismatch",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const threadId = await startThread(server);
        await client.request("thread/archive", { threadId });
        const resumed = await client.request("thread/resume", { threadId });
        expect(resumed.thread.archived).toBe(true);
        const held = await turnHeldAtApproval(server, threadId);

        expect(await errorCode(client.request("thread/delete", { threadId }))).toBe("turnInProgress");
        expect(await errorCode(client.request("turn/start", { threadId, text: "again" }))).toBe(
          "turnInProgress",
        );
        expect(
          await errorCode(
            client.request("turn/steer", { threadId, expectedTurnId: "stale-turn", text: "x" }),
          ),
        ).toBe("turnMismatch");
        expect(await errorCode(client.request("turn/interrupt", { threadId, turnId: "stale-turn" }))).toBe(
          "turnMismatch",
        );
        expect(
          await client.request("turn/steer", { threadId, expectedTurnId: held.turnId, text: "also" }),
        ).toEqual({ turnId: held.turnId });

        held.answer({ decision: "decline" });
        expect((await held.completed).turn.id).toBe(held.turnId);
        // the refused delete kept the thread loaded and subscribed; once idle it deletes
        const deleted = nextNotification<{ threadId: string }>(client, "thread/deleted");
        expect(await client.request("thread/delete", { threadId })).toEqual({});
        expect((await deleted).threadId).toBe(threadId);
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/delete and thread/resume: threadLockedElsewhere while another process owns the transcript",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const threadId = await startThread(server);
        await client.request("thread/archive", { threadId });
        const path = await transcriptPath(client, threadId);
        const owner = await ownInAnotherProcess(path);
        try {
          expect(await errorCode(client.request("thread/delete", { threadId }))).toBe(
            "threadLockedElsewhere",
          );
          expect(await errorCode(client.request("thread/resume", { threadId }))).toBe(
            "threadLockedElsewhere",
          );
          // reading needs no ownership
          expect((await client.request("thread/read", { threadId })).thread.id).toBe(threadId);
        } finally {
          await owner.release();
        }
        expect(await client.request("thread/delete", { threadId })).toEqual({});
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/archive and thread/delete: archiveConflict for a hard-linked transcript, with the surviving files in data",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const threadId = await startThread(server);
        const live = await transcriptPath(client, threadId);
        const extra = join(server.agent.root, "extra-link.jsonl");
        linkSync(live, extra);
        try {
          await client.request("thread/archive", { threadId });
          throw new Error("expected archiveConflict");
        } catch (error) {
          const e = error as { code: string; data: { reason: string } };
          expect(e.code).toBe("archiveConflict");
          expect(e.data.reason).toBe("hardLinked");
        }
        unlinkSync(extra);
        await client.request("thread/archive", { threadId });
        const archived = await transcriptPath(client, threadId);
        linkSync(archived, extra);
        try {
          await client.request("thread/delete", { threadId });
          throw new Error("expected archiveConflict");
        } catch (error) {
          const e = error as { code: string; data: { reason: string; surviving: string[] } };
          expect(e.code).toBe("archiveConflict");
          expect(e.data.reason).toBe("hardLinked");
          expect(e.data.surviving).toEqual([archived]);
        }
        expect(await Bun.file(archived).exists()).toBe(true);
        unlinkSync(extra);
        expect(await client.request("thread/delete", { threadId })).toEqual({});
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/delete: a filesystem failure (the lock file's name is too long) returns internal and keeps the transcript",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const threadId = await startThread(server);
        await client.request("thread/archive", { threadId });
        const archived = await transcriptPath(client, threadId);
        // a 252-byte file name is valid; its 257-byte lock file name is not (ENAMETOOLONG)
        const suffix = `_${threadId}.jsonl`;
        const long = join(dirname(archived), `${"x".repeat(252 - suffix.length)}${suffix}`);
        expect(basename(long).length).toBe(252);
        renameSync(archived, long);
        expect(await errorCode(client.request("thread/delete", { threadId }))).toBe("internal");
        expect(await Bun.file(long).exists()).toBe(true);
        renameSync(long, archived);
        expect(await client.request("thread/delete", { threadId })).toEqual({});
      },
      E2E_TIMEOUT,
    );

    test(
      "project/trust/set and config/read: filesystem failures return internal",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const trustStore = join(server.agent.agentDir, "trusted-projects.json");
        mkdirSync(trustStore);
        expect(
          await errorCode(client.request("project/trust/set", { cwd: server.agent.cwd, trusted: true })),
        ).toBe("internal");
        rmSync(trustStore, { recursive: true });
        mkdirSync(join(server.agent.agentDir, "settings.json"));
        expect(await errorCode(client.request("config/read", {}))).toBe("internal");
      },
      E2E_TIMEOUT,
    );

    test(
      "file/search: a listing that fails with no output returns internal",
      async () => {
        await using server = await target.start({ env: { KNIGHTCODE_FD_PATH: failingFd() } });
        expect(
          await errorCode(server.client.request("file/search", { cwd: server.agent.cwd, query: "a" })),
        ).toBe("internal");
      },
      E2E_TIMEOUT,
    );

    test(
      "shuttingDown: a file/search in progress when shutdown begins is answered shuttingDown",
      async () => {
        await using server = await target.start({ env: { KNIGHTCODE_FD_PATH: holdingFd() } });
        const search = server.client.request("file/search", { cwd: server.agent.cwd, query: "held" });
        const outcome = search.then(
          () => "answered",
          (error: { code?: string }) => error.code ?? String(error),
        );
        // the search is accepted (and its listing running) before shutdown begins
        await server.client.request("server/diagnostics", {});
        const exitCode = await server.shutdown();
        expect(await outcome).toBe("shuttingDown");
        if (target.name === "stdio") expect(exitCode).toBe(0);
      },
      E2E_TIMEOUT,
    );

    if (target.name === "in-process") {
      test(
        "shuttingDown: a request arriving after shutdown began is refused",
        async () => {
          await using server = await target.start();
          const other = await server.connect!();
          const shutdown = server.shutdown();
          expect(await errorCode(other.request("server/diagnostics", {}))).toBe("shuttingDown");
          await shutdown;
        },
        E2E_TIMEOUT,
      );
    }
  });
}
