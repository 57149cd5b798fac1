/**
 * Extensions end to end: real `knightcode app-server -e <fixture>` child processes (and
 * the in-process client over the same host), the testkit's mock model over HTTP, and
 * each event's effect observed through the protocol.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppServerClient, TurnCompletedNotification, Warning } from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, nextNotification, recordNotifications, startThread, TARGETS } from "./harness.ts";

const FIXTURES = join(import.meta.dir, "fixtures", "extensions");
const fixture = (name: string) => join(FIXTURES, name);

function turnDone(client: AppServerClient, threadId: string): Promise<TurnCompletedNotification> {
  return nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
}

function bodyText(body: unknown): string {
  return JSON.stringify(body);
}

for (const target of TARGETS) {
  describe(`[${target.name}] extensions`, () => {
    test(
      "a registered tool is called by the model and its result reaches the next request",
      async () => {
        await using server = await target.start({ extensions: [fixture("greet-tool.ts")] });
        server.mock.enqueue(
          toolCallReply({ name: "greet", arguments: { name: "Ada" }, id: "call_1" }),
          textReply("ok"),
        );
        const { threadId, warnings } = await startThread(server.client, server.agent.cwd);
        expect(warnings.filter((w) => w.source === "extension")).toEqual([]);
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "greet Ada" });
        expect((await done).turn.status).toBe("completed");
        expect(bodyText(server.mock.requests[0]!.body)).toContain('"greet"');
        expect(bodyText(server.mock.requests[1]!.body)).toContain(`Hello, Ada! (cwd ${server.agent.cwd})`);
      },
      E2E_TIMEOUT,
    );

    test(
      "an extension tool asks in ask and autoEdit, runs without asking in fullAccess",
      async () => {
        await using server = await target.start({ extensions: [fixture("greet-tool.ts")] });
        const asked: string[] = [];
        const previews: unknown[] = [];
        server.client.onRequest("item/toolCall/requestApproval", (params) => {
          asked.push(`${params.toolName}`);
          previews.push(params.preview);
          return { decision: "accept" };
        });
        for (const mode of ["ask", "autoEdit", "fullAccess"] as const) {
          server.mock.enqueue(
            toolCallReply({ name: "greet", arguments: { name: mode }, id: `call_${mode}` }),
            textReply("ok"),
          );
          const { threadId } = await startThread(server.client, server.agent.cwd, mode);
          const done = turnDone(server.client, threadId);
          await server.client.request("turn/start", { threadId, text: "greet" });
          expect((await done).turn.status).toBe("completed");
        }
        expect(asked).toEqual(["greet", "greet"]);
        // the approval names the extension the tool comes from
        expect(previews[0]).toMatchObject({ type: "tool", source: "extension", tool: "greet" });
        expect((previews[0] as { server: string }).server).toEndWith("greet-tool.ts");
      },
      E2E_TIMEOUT,
    );

    test(
      "tool_call blocks a dangerous command: the model reads the reason and nothing happens on disk",
      async () => {
        await using server = await target.start({ extensions: [fixture("dangerous-bash-gate.ts")] });
        const victim = join(server.agent.cwd, "keep.txt");
        writeFileSync(victim, "precious\n");
        server.mock.enqueue(
          toolCallReply({ name: "bash", arguments: { command: `rm -rf ${victim}` }, id: "call_rm" }),
          textReply("understood"),
        );
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "clean up" });
        await done;
        expect(existsSync(victim)).toBe(true);
        expect(bodyText(server.mock.requests[1]!.body)).toContain("Blocked: rm -rf is not allowed here");
      },
      E2E_TIMEOUT,
    );

    test(
      "input handled answers handled with no model request; a transform reaches the model",
      async () => {
        await using server = await target.start({ extensions: [fixture("input-rules.ts")] });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const handled = await server.client.request("turn/start", { threadId, text: "ping" });
        expect(handled.status).toBe("handled");
        expect(server.mock.requests.length).toBe(0);
        server.mock.enqueue(textReply("hi"));
        const done = turnDone(server.client, threadId);
        const started = await server.client.request("turn/start", { threadId, text: "?quick what is up" });
        expect(started.status).toBe("started");
        await done;
        expect(bodyText(server.mock.requests[0]!.body)).toContain("Respond briefly: what is up");
      },
      E2E_TIMEOUT,
    );

    test(
      "before_provider_request replaces the request body the provider sends",
      async () => {
        await using server = await target.start({ extensions: [fixture("payload-tag.ts")] });
        server.mock.enqueue(textReply("ok"));
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "hi" });
        await done;
        expect((server.mock.requests[0]!.body as { temperature?: number }).temperature).toBe(0.125);
      },
      E2E_TIMEOUT,
    );

    test(
      "user_bash answers a !command in its place; other commands run",
      async () => {
        await using server = await target.start({ extensions: [fixture("bash-intercept.ts")] });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const status = await server.client.request("thread/shell/run", { threadId, command: "status" });
        expect(status).toMatchObject({
          output: `all good in ${server.agent.cwd}`,
          exitCode: 0,
          cancelled: false,
        });
        const echo = await server.client.request("thread/shell/run", { threadId, command: "echo real" });
        expect(echo.output.trim()).toBe("real");
      },
      E2E_TIMEOUT,
    );

    test(
      "message_end drop withdraws the assistant item with item/removed",
      async () => {
        await using server = await target.start({ extensions: [fixture("drop-secret.ts")] });
        server.mock.enqueue(textReply("the SECRET is 42", 3));
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const seen = recordNotifications(server.client);
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "tell me" });
        await done;
        const started = seen.find(
          (n) =>
            n.method === "item/started" &&
            (n.params as { item: { type: string } }).item.type === "agentMessage",
        );
        const removed = seen.find((n) => n.method === "item/removed");
        expect(started).toBeDefined();
        expect(removed).toBeDefined();
        expect((removed!.params as { itemId: string }).itemId).toBe(
          (started!.params as { item: { id: string } }).item.id,
        );
        const read = await server.client.request("thread/read", { threadId });
        const items = read.turns.flatMap((t) => ("items" in t ? (t.items ?? []) : []));
        expect(items.map((i) => i.type)).toEqual(["userMessage"]);
      },
      E2E_TIMEOUT,
    );

    test(
      "an extension command is listed by command/list and run by turn/start",
      async () => {
        await using server = await target.start({ extensions: [fixture("hello-command.ts")] });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const { commands } = await server.client.request("command/list", { threadId });
        expect(commands).toContainEqual({
          name: "hello",
          description: "Writes a greeting entry",
          source: "extension",
        });
        const result = await server.client.request("turn/start", { threadId, text: "/hello world" });
        expect(result.status).toBe("handled");
        expect(server.mock.requests.length).toBe(0);
        const { thread } = await server.client.request("thread/read", { threadId });
        const lines = readFileSync(thread.path!, "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
        expect(lines).toContainEqual(
          expect.objectContaining({ type: "custom", customType: "hello", data: { args: "world" } }),
        );
      },
      E2E_TIMEOUT,
    );

    test(
      "broken extensions are warnings with their path and the thread still serves turns",
      async () => {
        const broken = ["no-default-export.ts", "throwing-factory.ts"].map(fixture);
        await using server = await target.start({
          extensions: [...broken, fixture("clash-a.ts"), fixture("clash-b.ts"), fixture("stdout-writer.ts")],
        });
        const { threadId, warnings } = await startThread(server.client, server.agent.cwd);
        const byPath = (path: string) => warnings.filter((w) => w.source === "extension" && w.path === path);
        expect(byPath(broken[0]!)[0]!.message).toContain("no default export function");
        expect(byPath(broken[1]!)[0]!.message).toContain("factory exploded");
        const clash = byPath(fixture("clash-b.ts"))[0]!;
        expect(clash.message).toContain(fixture("clash-a.ts"));
        expect(clash.message).toContain(fixture("clash-b.ts"));
        expect(byPath(fixture("stdout-writer.ts"))[0]!.message).toContain("stdout");
        server.mock.enqueue(
          toolCallReply({ name: "shared_tool", arguments: {}, id: "call_s" }),
          textReply("fine"),
        );
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "go" });
        expect((await done).turn.status).toBe("completed");
        // the first registration wins
        expect(bodyText(server.mock.requests[1]!.body)).toContain("from clash-a");
      },
      E2E_TIMEOUT,
    );

    test(
      "a throwing handler and a handler that never settles become subscriber warnings; the turn completes",
      async () => {
        await using server = await target.start({
          extensions: [fixture("throwing-handler.ts"), fixture("hanging-handler.ts")],
          settings: { extensionHookTimeoutMs: 300 },
        });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const warnings: Warning[] = [];
        server.client.onNotification("warning", (params) => {
          warnings.push(params as Warning);
        });
        server.mock.enqueue(textReply("still here"));
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "hi" });
        expect((await done).turn.status).toBe("completed");
        const thrown = warnings.find((w) => w.path === fixture("throwing-handler.ts"));
        const hung = warnings.find((w) => w.path === fixture("hanging-handler.ts"));
        expect(thrown?.message).toContain("handler exploded");
        expect(hung?.message).toContain("did not answer within 300 ms");
        expect((thrown as Warning & { threadId?: string }).threadId).toBe(threadId);
      },
      E2E_TIMEOUT,
    );

    test(
      "a tool's nested calls are live items with parentItemId and no index, absent from history",
      async () => {
        await using server = await target.start({ extensions: [fixture("nested-runner.ts")] });
        writeFileSync(join(server.agent.cwd, "a.txt"), "alpha");
        writeFileSync(join(server.agent.cwd, "b.txt"), "beta");
        server.mock.enqueue(
          toolCallReply({ name: "batch_read", arguments: { paths: ["a.txt", "b.txt"] }, id: "call_batch" }),
          textReply("read both"),
        );
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const seen = recordNotifications(server.client);
        const done = turnDone(server.client, threadId);
        await server.client.request("turn/start", { threadId, text: "read" });
        await done;
        type Item = { id: string; parentItemId?: string; index?: number; status: string; output?: string };
        const nestedOf = (method: string) =>
          seen
            .filter((n) => n.method === method)
            .map((n) => (n.params as { item: Item }).item)
            .filter((item) => item.parentItemId !== undefined);
        const started = nestedOf("item/started");
        const completed = nestedOf("item/completed");
        expect(started.map((i) => [i.id, i.parentItemId, i.index, i.status])).toEqual([
          ["call_batch/read-0", "call_batch", undefined, "inProgress"],
          ["call_batch/read-1", "call_batch", undefined, "inProgress"],
        ]);
        expect(completed.map((i) => [i.id, i.status, i.output, i.index])).toEqual([
          ["call_batch/read-0", "completed", "alpha", undefined],
          ["call_batch/read-1", "completed", "beta", undefined],
        ]);
        const read = await server.client.request("thread/read", { threadId });
        const ids = read.turns
          .flatMap((t) => ("items" in t ? (t.items ?? []) : []))
          .map((i) => ("id" in i ? i.id : ""));
        expect(ids).toContain("call_batch");
        expect(ids.some((id) => id.startsWith("call_batch/"))).toBe(false);
      },
      E2E_TIMEOUT,
    );

    test(
      "turn/interrupt answers at once while a hook hangs",
      async () => {
        await using server = await target.start({
          extensions: [fixture("hanging-handler.ts")],
          settings: { extensionHookTimeoutMs: 3_000 },
        });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const done = turnDone(server.client, threadId);
        const started = nextNotification(
          server.client,
          "turn/started",
          (p: { threadId: string }) => p.threadId === threadId,
        );
        await server.client.request("turn/start", { threadId, text: "hi" });
        await started;
        expect(await server.client.request("turn/interrupt", { threadId })).toEqual({});
        // other threads keep working meanwhile
        const other = await startThread(server.client, server.agent.cwd);
        expect(other.threadId).not.toBe(threadId);
        // once the hook times out the interrupted turn settles without a model request
        expect((await done).turn.status).toBe("interrupted");
        expect(server.mock.requests.length).toBe(0);
      },
      E2E_TIMEOUT,
    );
  });
}
