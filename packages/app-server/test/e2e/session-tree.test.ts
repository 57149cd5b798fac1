/**
 * `thread/tree/read` and `thread/tree/navigate` end to end: the conversation entries of
 * every branch, and continuing from an earlier one so the next model request carries
 * only the new branch; both branches stay in the tree.
 */
import { describe, expect, test } from "bun:test";
import { textReply } from "@knightcode/testkit";
import {
  E2E_TIMEOUT,
  type E2EServer,
  errorCode,
  MOCK_MODEL,
  nextNotification,
  TARGETS,
  turnHeldAtApproval,
} from "./harness.ts";

async function turn(server: E2EServer, threadId: string, text: string): Promise<void> {
  const completed = nextNotification<{ threadId: string }>(
    server.client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
  await server.client.request("turn/start", { threadId, text });
  await completed;
}

for (const target of TARGETS) {
  describe(`[${target.name}] session tree`, () => {
    test(
      "thread/tree/read lists every branch's messages and thread/tree/navigate continues from an earlier entry",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const { thread } = await client.request("thread/start", { cwd: server.agent.cwd, model: MOCK_MODEL });
        server.mock.enqueue(textReply("answer one"), textReply("answer two"), textReply("answer three"));
        await turn(server, thread.id, "question one");
        await turn(server, thread.id, "question two");

        const before = await client.request("thread/tree/read", { threadId: thread.id });
        expect(before.entries.map((e) => [e.kind, e.preview])).toEqual([
          ["user", "question one"],
          ["assistant", "answer one"],
          ["user", "question two"],
          ["assistant", "answer two"],
        ]);
        expect(before.currentBranch).toEqual(before.entries.map((e) => e.id));
        const two = before.entries[2]!;
        // the edges to draw skip the turn markers between them; the raw parent of a later prompt is one
        expect(before.entries.map((e) => e.treeParentId)).toEqual([
          null,
          ...before.entries.slice(0, -1).map((e) => e.id),
        ]);
        expect(two.parentId).not.toBe(before.entries[1]!.id);

        const moved = await client.request("thread/tree/navigate", {
          threadId: thread.id,
          entryId: two.parentId,
        });
        // the parent of a turn's first message is its start marker: the move goes to before the
        // marker, so no turn is left open (it would read back as interrupted)
        expect(moved.cancelled).toBeUndefined();
        const moment = await client.request("thread/read", { threadId: thread.id });
        expect(moment.turns.map((t) => (t as { status: string }).status)).toEqual(["completed"]);
        await turn(server, thread.id, "question three");
        const history = await client.request("thread/read", { threadId: thread.id });
        expect(history.turns.map((t) => (t as { status: string }).status)).toEqual([
          "completed",
          "completed",
        ]);
        const sent = JSON.stringify(server.mock.requests[2]!.body);
        expect(sent).toContain("answer one");
        expect(sent).not.toContain("question two");

        const after = await client.request("thread/tree/read", { threadId: thread.id });
        const previews = after.entries.map((e) => e.preview);
        expect(previews).toContain("question two");
        expect(previews).toContain("question three");
        const onBranch = after.entries
          .filter((e) => after.currentBranch.includes(e.id))
          .map((e) => e.preview);
        expect(onBranch).toEqual(["question one", "answer one", "question three", "answer three"]);
        // thread/read follows the new branch
        const page = await client.request("thread/read", { threadId: thread.id });
        expect(JSON.stringify(page.turns)).not.toContain("question two");
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/tree/navigate with summarize writes a branch summary of the branch left behind, which the next request carries",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const { thread } = await client.request("thread/start", { cwd: server.agent.cwd, model: MOCK_MODEL });
        server.mock.enqueue(textReply("answer one"), textReply("answer two"));
        await turn(server, thread.id, "question one");
        await turn(server, thread.id, "question two");
        const tree = await client.request("thread/tree/read", { threadId: thread.id });
        const one = tree.entries[1]!;
        server.mock.enqueue(
          textReply("SUMMARY: the user also asked question two"),
          textReply("answer three"),
        );
        const moved = await client.request("thread/tree/navigate", {
          threadId: thread.id,
          entryId: one.id,
          summarize: true,
        });
        expect(moved.summaryEntryId).toBeString();
        expect(moved.leafId).toBe(moved.summaryEntryId!);
        // the summarizer saw the abandoned branch
        expect(JSON.stringify(server.mock.requests[2]!.body)).toContain("question two");
        await turn(server, thread.id, "question three");
        const sent = JSON.stringify(server.mock.requests[3]!.body);
        expect(sent).toContain("SUMMARY: the user also asked question two");
        const after = await client.request("thread/tree/read", { threadId: thread.id });
        expect(after.entries.find((e) => e.id === moved.summaryEntryId)?.kind).toBe("branchSummary");
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/read with leafId reads another branch whole: a long message of the branch left behind, beyond its tree preview",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const { thread } = await client.request("thread/start", { cwd: server.agent.cwd, model: MOCK_MODEL });
        const long = `${"the first line says a lot ".repeat(10)}\n\n  indented second paragraph, ${"more words ".repeat(20)}end`;
        server.mock.enqueue(textReply("answer one"), textReply("answer two"));
        await turn(server, thread.id, "question one");
        await turn(server, thread.id, long);
        const tree = await client.request("thread/tree/read", { threadId: thread.id });
        const two = tree.entries[2]!;
        expect(two.preview.length).toBe(200);
        const moved = await client.request("thread/tree/navigate", {
          threadId: thread.id,
          entryId: two.parentId,
        });

        const other = await client.request("thread/read", { threadId: thread.id, leafId: two.id });
        const newest = await client.resolveTurn(other.turns.at(-1)!);
        expect(newest.items?.[0]).toMatchObject({ type: "userMessage", text: long });
        expect(other.turns).toHaveLength(2);
        // the current branch and the leaf are unchanged by the read
        const current = await client.request("thread/read", { threadId: thread.id });
        expect(JSON.stringify(current.turns)).not.toContain("indented second paragraph");
        expect((await client.request("thread/tree/read", { threadId: thread.id })).leafId).toBe(moved.leafId);

        expect(
          await errorCode(client.request("thread/read", { threadId: thread.id, leafId: "no-such-entry" })),
        ).toBe("invalidParams");
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/tree/read and thread/tree/navigate: threadNotFound for an unknown thread; navigate: invalidParams for an unknown entry, turnInProgress while a turn runs",
      async () => {
        await using server = await target.start();
        const { client } = server;
        expect(await errorCode(client.request("thread/tree/read", { threadId: "nope" }))).toBe(
          "threadNotFound",
        );
        expect(
          await errorCode(client.request("thread/tree/navigate", { threadId: "nope", entryId: null })),
        ).toBe("threadNotFound");
        const { thread } = await client.request("thread/start", {
          cwd: server.agent.cwd,
          model: MOCK_MODEL,
          approvalMode: "ask",
        });
        expect(
          await errorCode(
            client.request("thread/tree/navigate", { threadId: thread.id, entryId: "no-such-entry" }),
          ),
        ).toBe("invalidParams");
        const held = await turnHeldAtApproval(server, thread.id);
        expect(
          await errorCode(client.request("thread/tree/navigate", { threadId: thread.id, entryId: null })),
        ).toBe("turnInProgress");
        held.answer({ decision: "decline" });
        await held.completed;
      },
      E2E_TIMEOUT,
    );
  });
}
