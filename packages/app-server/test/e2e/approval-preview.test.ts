import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type {
  AppServerClient,
  ItemToolCallRequestApprovalParams,
  ItemToolCallRequestApprovalResult,
  ThreadItem,
} from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, nextNotification, startThread, TARGETS } from "./harness.ts";

/** Runs one turn on `threadId`, answering each approval with the next of `answers`; returns what was asked. */
async function turnAsking(
  client: AppServerClient,
  threadId: string,
  answers: ItemToolCallRequestApprovalResult["decision"][],
  onAsk: (params: ItemToolCallRequestApprovalParams) => void = () => {},
) {
  const asked: ItemToolCallRequestApprovalParams[] = [];
  client.onRequest("item/toolCall/requestApproval", (params) => {
    asked.push(params);
    onAsk(params);
    return { decision: answers.shift() ?? "decline" };
  });
  const items = new Map<string, ThreadItem>();
  client.onNotification("item/completed", (p) => {
    if (p.threadId === threadId && "id" in p.item) items.set(p.item.id, p.item as ThreadItem);
  });
  const done = nextNotification(
    client,
    "turn/completed",
    (p: { threadId: string }) => p.threadId === threadId,
  );
  await client.request("turn/start", { threadId, text: "go" });
  await done;
  return { asked, items };
}

for (const target of TARGETS) {
  describe(`[${target.name}] approval previews`, () => {
    test(
      "a write's approval carries the new file's diff, and an edit's the diff it would apply, before anything changes",
      async () => {
        await using server = await target.start();
        const cwd = server.agent.cwd;
        writeFileSync(join(cwd, "notes.txt"), "alpha\nbeta\ngamma\n");
        server.mock.enqueue(
          toolCallReply({
            name: "write",
            arguments: { path: "fresh.txt", content: "one\ntwo\n" },
            id: "call_w",
          }),
          toolCallReply({
            name: "edit",
            arguments: { path: "notes.txt", edits: [{ oldText: "beta", newText: "BETA" }] },
            id: "call_e",
          }),
          textReply("done"),
        );
        const { threadId } = await startThread(server.client, cwd, "ask");
        const onDisk: string[] = [];
        const { asked } = await turnAsking(server.client, threadId, ["accept", "accept"], () =>
          onDisk.push(
            `${existsSync(join(cwd, "fresh.txt"))} ${readFileSync(join(cwd, "notes.txt"), "utf8")}`,
          ),
        );
        expect(asked.map((a) => a.toolName)).toEqual(["write", "edit"]);
        expect(asked[0]!.preview).toMatchObject({
          type: "fileChange",
          path: join(cwd, "fresh.txt"),
          kind: "add",
        });
        expect((asked[0]!.preview as { diff: string }).diff).toContain("+one\n+two\n");
        expect(asked[1]!.preview).toMatchObject({
          type: "fileChange",
          path: join(cwd, "notes.txt"),
          kind: "modify",
        });
        expect((asked[1]!.preview as { diff: string }).diff).toContain(" alpha\n-beta\n+BETA\n gamma\n");
        // asked before writing: no new file at the first question, the old text at the second
        expect(onDisk).toEqual(["false alpha\nbeta\ngamma\n", "true alpha\nbeta\ngamma\n"]);
        expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
      },
      E2E_TIMEOUT,
    );

    test(
      "an edit that cannot apply says why in its preview; a shell command carries its cwd and prefix",
      async () => {
        await using server = await target.start();
        const cwd = server.agent.cwd;
        writeFileSync(join(cwd, "notes.txt"), "alpha\n");
        server.mock.enqueue(
          toolCallReply({
            name: "edit",
            arguments: { path: "notes.txt", edits: [{ oldText: "zeta", newText: "x" }] },
            id: "call_e",
          }),
          toolCallReply({ name: "bash", arguments: { command: "git status --short" }, id: "call_b" }),
          textReply("done"),
        );
        const { threadId } = await startThread(server.client, cwd, "ask");
        const { asked } = await turnAsking(server.client, threadId, ["decline", "decline"]);
        const edit = asked[0]!.preview as { error?: string; diff?: string };
        expect(edit.diff).toBeUndefined();
        expect(edit.error).toContain("notes.txt");
        expect(asked[1]!.preview).toEqual({ type: "command", command: "git status --short", cwd });
        expect(asked[1]!.prefix).toBe("git status");
      },
      E2E_TIMEOUT,
    );

    test(
      "a decline wins over an earlier grant of another scope: write allowed for the session, then a write outside the workspace declined",
      async () => {
        await using server = await target.start();
        const cwd = server.agent.cwd;
        const outside = mkdtempSync(join(tmpdir(), "kc-outside-"));
        try {
          server.mock.enqueue(
            toolCallReply({ name: "write", arguments: { path: "in.txt", content: "in\n" }, id: "call_1" }),
            toolCallReply({ name: "write", arguments: { path: "in2.txt", content: "in2\n" }, id: "call_2" }),
            toolCallReply({
              name: "write",
              arguments: { path: join(outside, "out.txt"), content: "out\n" },
              id: "call_3",
            }),
            textReply("done"),
          );
          const { threadId } = await startThread(server.client, cwd, "ask");
          const { asked, items } = await turnAsking(server.client, threadId, ["acceptForSession", "decline"]);
          // the grant covers the second write in the workspace; the outside one asks again and is declined
          expect(asked.map((a) => (a.input as { path: string }).path)).toEqual([
            "in.txt",
            join(outside, "out.txt"),
          ]);
          expect(asked[1]!.decisions).not.toContain("acceptForSession");
          expect(asked[1]!.preview).toMatchObject({
            type: "fileChange",
            path: join(outside, "out.txt"),
            kind: "add",
          });
          expect(items.get("call_3")).toMatchObject({ status: "declined" });
          expect(existsSync(join(outside, "out.txt"))).toBe(false);
          expect(readFileSync(join(cwd, "in2.txt"), "utf8")).toBe("in2\n");
        } finally {
          rmSync(outside, { recursive: true, force: true });
        }
      },
      E2E_TIMEOUT,
    );
  });
}
