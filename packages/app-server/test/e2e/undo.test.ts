/**
 * `thread/undo` end to end: the server checkpoints a git working tree before each turn and
 * puts back what the last turn changed, with the terminal's rules (ignored files within a
 * budget, created files removed, what it cannot restore named with the reason).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ThreadUndoResult } from "@knightcode/app-server-protocol";
import { gitSync, textReply, toolCallReply } from "@knightcode/testkit";
import {
  E2E_TIMEOUT,
  type E2EServer,
  errorCode,
  MOCK_MODEL,
  nextNotification,
  TARGETS,
  turnHeldAtApproval,
} from "./harness.ts";

/** A repository in `cwd` with everything there (bar what it ignores) in one commit. */
function commitEverything(cwd: string): void {
  gitSync(cwd, "init", "-q");
  gitSync(cwd, "add", ".");
  gitSync(cwd, "commit", "-qm", "init");
}

/** Runs one turn of `replies` on the thread, waits for it to complete and answers its ID. */
async function runTurn(
  server: E2EServer,
  threadId: string,
  ...replies: Parameters<E2EServer["mock"]["enqueue"]>
): Promise<string> {
  server.mock.enqueue(...replies);
  const completed = nextNotification<{ threadId: string; turn: { id: string } }>(
    server.client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
  await server.client.request("turn/start", { threadId, text: "change things" });
  return (await completed).turn.id;
}

/** The error `thread/undo` answers, with its data. */
async function undoRefusal(server: E2EServer, threadId: string): Promise<{ code: string; data: unknown }> {
  try {
    await server.client.request("thread/undo", { threadId });
  } catch (error) {
    const { code, data } = error as { code: string; data: unknown };
    return { code, data };
  }
  throw new Error("expected thread/undo to fail");
}

for (const target of TARGETS) {
  describe(`[${target.name}] thread/undo`, () => {
    test(
      "thread/undo puts back edited and overwritten files and removes created ones; then nothingToUndo counts the turns undone",
      async () => {
        await using server = await target.start();
        const cwd = server.agent.cwd;
        writeFileSync(join(cwd, "kept.txt"), "original\n");
        commitEverything(cwd);
        writeFileSync(join(cwd, "draft.txt"), "uncommitted draft\n");
        const { thread } = await server.client.request("thread/start", {
          cwd,
          model: MOCK_MODEL,
          approvalMode: "autoEdit",
        });
        expect(await undoRefusal(server, thread.id)).toEqual({ code: "nothingToUndo", data: { undone: 0 } });
        const turnId = await runTurn(
          server,
          thread.id,
          toolCallReply(
            {
              name: "edit",
              arguments: { path: "kept.txt", edits: [{ oldText: "original", newText: "changed" }] },
            },
            { name: "write", arguments: { path: "draft.txt", content: "overwritten\n" } },
            { name: "write", arguments: { path: "new.txt", content: "brand new\n" } },
          ),
          textReply("Changed three files."),
        );
        expect(readFileSync(join(cwd, "kept.txt"), "utf8")).toBe("changed\n");
        const undone: ThreadUndoResult = await server.client.request("thread/undo", { threadId: thread.id });
        expect(undone.turnId).toBe(turnId);
        expect(undone.remaining).toBe(0);
        expect(undone.notRestored).toEqual([]);
        expect([...undone.restored].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
          { path: "draft.txt", action: "restored" },
          { path: "kept.txt", action: "restored" },
          { path: "new.txt", action: "removed" },
        ]);
        expect(readFileSync(join(cwd, "kept.txt"), "utf8")).toBe("original\n");
        expect(readFileSync(join(cwd, "draft.txt"), "utf8")).toBe("uncommitted draft\n");
        expect(existsSync(join(cwd, "new.txt"))).toBe(false);
        // the user's index was never touched: git still sees the draft as untracked, nothing staged
        const status = Bun.spawnSync(["git", "status", "--porcelain"], { cwd }).stdout.toString();
        expect(status).toBe("?? draft.txt\n");
        expect(await undoRefusal(server, thread.id)).toEqual({ code: "nothingToUndo", data: { undone: 1 } });
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/undo restores an ignored file the turn edited and removes one it created; one in an ignored folder or outside the repository is named with the reason",
      async () => {
        await using server = await target.start();
        const cwd = server.agent.cwd;
        writeFileSync(join(cwd, ".gitignore"), "*.local.json\nbuild/\n");
        writeFileSync(join(cwd, "config.local.json"), '{"port": 1}\n');
        mkdirSync(join(cwd, "build"));
        writeFileSync(join(cwd, "build", "out.txt"), "built once\n");
        commitEverything(cwd);
        const { thread } = await server.client.request("thread/start", {
          cwd,
          model: MOCK_MODEL,
          approvalMode: "fullAccess",
        });
        await runTurn(
          server,
          thread.id,
          toolCallReply(
            {
              name: "edit",
              arguments: {
                path: "config.local.json",
                edits: [{ oldText: '"port": 1', newText: '"port": 2' }],
              },
            },
            { name: "write", arguments: { path: "secrets.local.json", content: "{}\n" } },
            { name: "write", arguments: { path: "build/out.txt", content: "built twice\n" } },
            { name: "write", arguments: { path: "../outside-undo.txt", content: "beyond\n" } },
          ),
          textReply("Changed the ignored files."),
        );
        const undone = await server.client.request("thread/undo", { threadId: thread.id });
        expect([...undone.restored].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
          { path: "config.local.json", action: "restored" },
          { path: "secrets.local.json", action: "removed" },
        ]);
        expect(undone.notRestored).toContainEqual({ path: "build/out.txt", reason: "notCheckpointed" });
        expect(undone.notRestored).toContainEqual({
          path: join(cwd, "..", "outside-undo.txt"),
          reason: "outsideRepository",
        });
        expect(undone.notRestored).toHaveLength(2);
        expect(readFileSync(join(cwd, "config.local.json"), "utf8")).toBe('{"port": 1}\n');
        expect(existsSync(join(cwd, "secrets.local.json"))).toBe(false);
        expect(readFileSync(join(cwd, "build", "out.txt"), "utf8")).toBe("built twice\n");
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/undo: a queued input the server starts on its own is checkpointed too, and two undos go back two turns",
      async () => {
        await using server = await target.start();
        const cwd = server.agent.cwd;
        writeFileSync(join(cwd, "a.txt"), "zero\n");
        commitEverything(cwd);
        const { thread } = await server.client.request("thread/start", {
          cwd,
          model: MOCK_MODEL,
          approvalMode: "autoEdit",
        });
        const held = await turnHeldAtApproval(server, thread.id);
        server.mock.enqueue(
          toolCallReply({ name: "write", arguments: { path: "a.txt", content: "two\n" } }),
          textReply("second"),
        );
        const second = nextNotification(
          server.client,
          "turn/completed",
          (p: { threadId: string; turn: { id: string } }) => p.turn.id !== held.turnId,
        );
        await server.client.request("turn/queue/add", { threadId: thread.id, text: "then write" });
        writeFileSync(join(cwd, "a.txt"), "one\n");
        held.answer({ decision: "decline" });
        await held.completed;
        await second;
        expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("two\n");
        const last = await server.client.request("thread/undo", { threadId: thread.id });
        expect(last).toMatchObject({ restored: [{ path: "a.txt", action: "restored" }], remaining: 1 });
        expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("one\n");
        const first = await server.client.request("thread/undo", { threadId: thread.id });
        expect(first).toMatchObject({ turnId: held.turnId, remaining: 0 });
        expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("zero\n");
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/undo: invalidParams (reason notGitRepository) outside a repository, threadNotFound for an unknown thread, turnInProgress while a turn runs",
      async () => {
        await using server = await target.start();
        const { client } = server;
        expect(await errorCode(client.request("thread/undo", { threadId: "nope" }))).toBe("threadNotFound");
        const { thread } = await client.request("thread/start", {
          cwd: server.agent.cwd,
          model: MOCK_MODEL,
          approvalMode: "ask",
        });
        expect(await undoRefusal(server, thread.id)).toEqual({
          code: "invalidParams",
          data: { reason: "notGitRepository" },
        });
        writeFileSync(join(server.agent.cwd, "marker.txt"), "m\n");
        commitEverything(server.agent.cwd);
        const held = await turnHeldAtApproval(server, thread.id);
        expect(await errorCode(client.request("thread/undo", { threadId: thread.id }))).toBe(
          "turnInProgress",
        );
        held.answer({ decision: "decline" });
        await held.completed;
      },
      E2E_TIMEOUT,
    );
  });
}
