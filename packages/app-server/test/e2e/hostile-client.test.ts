/**
 * A client that breaks the rules: reused request ids, odd ids, answers nobody asked for,
 * an approval answered twice, notifications the server does not know. The server answers
 * what deserves an answer, ignores the rest, and stays usable.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ThreadItem } from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, MOCK_MODEL, nextNotification, TARGETS } from "./harness.ts";
import { holdingFd } from "./holding-fd.ts";

type Wire = Record<string, unknown>;
const isResponseTo = (id: unknown) => (m: Wire) => m.id === id && ("result" in m || "error" in m);
const codeOf = (m: Wire) => (m.error as { code?: string } | undefined)?.code;

for (const target of TARGETS) {
  describe(`[${target.name}] hostile client`, () => {
    test(
      "a request id reused while in flight is refused with invalidRequest; the first request keeps its answer",
      async () => {
        await using server = await target.start({ env: { KNIGHTCODE_FD_PATH: holdingFd() } });
        const cwd = server.agent.cwd;
        server.sendRaw({ id: "dup", method: "file/search", params: { cwd, query: "held" } });
        server.sendRaw({ id: "dup", method: "server/diagnostics", params: {} });
        server.sendRaw({ id: "dup", method: "no/such/method", params: {} });
        server.sendRaw({ id: "dup", method: "initialize", params: { clientInfo: { name: "again" } } });
        // answered in order on one connection: once this returns, the duplicates were answered
        await server.client.request("server/diagnostics", {});
        const early = server.received().filter((m) => isResponseTo("dup")(m as unknown as Wire));
        expect(early.map((m) => codeOf(m as unknown as Wire))).toEqual([
          "invalidRequest",
          "invalidRequest",
          "invalidRequest",
        ]);
        writeFileSync(join(cwd, "release"), "");
        const answer = (await server.nextMessage(
          (m) => isResponseTo("dup")(m) && "result" in m,
        )) as unknown as { result: { files: { path: string }[] } };
        expect(answer.result.files.map((f) => f.path)).toEqual(["held.ts"]);
        // the id is free again once answered
        server.sendRaw({ id: "dup", method: "server/diagnostics", params: {} });
        const again = await server.nextMessage(
          (m) => isResponseTo("dup")(m) && "result" in m && "rssBytes" in (m.result as Wire),
        );
        expect("error" in again).toBe(false);
      },
      E2E_TIMEOUT,
    );

    test(
      "odd but valid ids are echoed exactly; stray responses and unknown notifications get no answer",
      async () => {
        await using server = await target.start();
        const ids: (string | number)[] = [Number.MAX_VALUE, 2 ** 53 + 2, -7, 0.5, 0, "", "x".repeat(100_000)];
        for (const id of ids) server.sendRaw({ id, method: "server/diagnostics", params: {} });
        // answers to server requests nobody sent, and notifications nobody defined
        server.sendRaw({ id: "s1", result: { decision: "accept" } });
        server.sendRaw({ id: "s999999", error: { code: "internal", message: "no" } });
        server.sendRaw({ id: 12_345, result: null });
        server.sendRaw({ method: "no/such/notification", params: { x: 1 } });
        server.sendRaw({ method: "initialized", params: {} });
        server.sendRaw({ method: "$/cancelRequest", params: { id: 1 } });
        for (const id of ids) {
          const response = (await server.nextMessage(isResponseTo(id))) as unknown as Wire;
          expect(response.id).toBe(id);
          expect("result" in response).toBe(true);
        }
        expect((await server.client.request("server/diagnostics", {})).rssBytes).toBeGreaterThan(0);
        const answeredStrays = server
          .received()
          .filter((m) => ["s1", "s999999", 12_345].includes((m as unknown as Wire).id as string));
        expect(answeredStrays).toEqual([]);
        expect(server.received().filter((m) => (m as unknown as Wire).id === null)).toEqual([]);
      },
      E2E_TIMEOUT,
    );

    test(
      "an approval answered twice: the first answer counts, the second is ignored, the tool runs once",
      async () => {
        await using server = await target.start();
        const marker = join(server.agent.cwd, "runs.txt");
        server.mock.enqueue(
          toolCallReply({ name: "bash", arguments: { command: `echo run >> '${marker}'` } }),
          textReply("done"),
        );
        const { thread } = await server.client.request("thread/start", {
          cwd: server.agent.cwd,
          approvalMode: "ask",
          model: MOCK_MODEL,
        });
        server.client.onRequest("item/toolCall/requestApproval", (_params, context) => {
          // answered raw, twice and contradicting, right behind each other; the client itself never answers
          server.sendRaw({ id: context.id, result: { decision: "accept" } });
          server.sendRaw({ id: context.id, result: { decision: "decline" } });
          return new Promise<never>(() => {});
        });
        const toolDone = nextNotification<{ item: ThreadItem }>(
          server.client,
          "item/completed",
          (p) => p.item.type === "toolCall",
        );
        const turnDone = nextNotification(server.client, "turn/completed", (p: { threadId: string }) => {
          return p.threadId === thread.id;
        });
        await server.client.request("turn/start", { threadId: thread.id, text: "run it" });
        const { item } = await toolDone;
        await turnDone;
        expect(item.type === "toolCall" && item.status).toBe("completed");
        expect(await Bun.file(marker).text()).toBe("run\n");
        expect((await server.client.request("server/diagnostics", {})).loadedThreads).toBe(1);
      },
      E2E_TIMEOUT,
    );

    test(
      "a client that disconnects mid-approval: the approval is cancelled, the tool never runs, the server carries on",
      async () => {
        await using server = await target.start();
        const marker = join(server.agent.cwd, "ran.txt");
        server.mock.enqueue(
          toolCallReply({ name: "bash", arguments: { command: `echo run > '${marker}'` } }),
          textReply("done"),
        );
        // in-process, the leaving client is a second connection; over stdio it is the only one
        const leaving = server.connect === undefined ? server.client : await server.connect();
        const asked = Promise.withResolvers<void>();
        leaving.onRequest("item/toolCall/requestApproval", () => {
          asked.resolve();
          return new Promise<never>(() => {});
        });
        const { thread } = await leaving.request("thread/start", {
          cwd: server.agent.cwd,
          approvalMode: "ask",
          model: MOCK_MODEL,
        });
        await leaving.request("turn/start", { threadId: thread.id, text: "run it" });
        await asked.promise;
        if (server.connect === undefined) {
          // stdin EOF mid-approval: a clean shutdown, not a ten-second hard exit
          expect(await server.shutdown()).toBe(0);
          expect(server.stderr()).not.toContain("hard exit");
        } else {
          const finished = nextNotification<{ threadId: string; turn: { status: string } }>(
            server.client,
            "thread/turn/completed",
            (p) => p.threadId === thread.id,
          );
          await leaving.close();
          expect((await finished).turn.status).toBe("completed");
          expect((await server.client.request("server/diagnostics", {})).loadedThreads).toBe(1);
        }
        expect(await Bun.file(marker).exists()).toBe(false);
      },
      E2E_TIMEOUT,
    );
  });
}
