/**
 * Every example in `examples/extensions/` loaded into a real server (`-e` on a child
 * process, `extensionPaths` in-process) and exercised through the protocol.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppServerClient, ThreadItem, TurnCompletedNotification } from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, nextNotification, recordNotifications, startThread, TARGETS } from "./harness.ts";

const EXAMPLES = join(import.meta.dir, "..", "..", "..", "..", "examples", "extensions");
const example = (name: string) => join(EXAMPLES, name);

async function turn(
  client: AppServerClient,
  threadId: string,
  text: string,
): Promise<TurnCompletedNotification> {
  const done = nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
  const result = await client.request("turn/start", { threadId, text });
  expect(result.status).toBe("started");
  return done;
}

function transcript(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function transcriptOf(client: AppServerClient, threadId: string): Promise<Record<string, unknown>[]> {
  const { thread } = await client.request("thread/read", { threadId });
  return transcript(thread.path!);
}

const body = (server: { mock: { requests: readonly { body: unknown }[] } }, index: number) =>
  JSON.stringify(server.mock.requests[index]!.body);

for (const target of TARGETS) {
  describe(`[${target.name}] example extensions`, () => {
    test(
      "hello-tool: the model calls the tool and reads its greeting",
      async () => {
        await using server = await target.start({ extensions: [example("hello-tool.ts")] });
        server.mock.enqueue(
          toolCallReply({ name: "hello", arguments: { name: "Ada" }, id: "c1" }),
          textReply("done"),
        );
        const { threadId } = await startThread(server.client, server.agent.cwd);
        expect((await turn(server.client, threadId, "say hello")).turn.status).toBe("completed");
        expect(body(server, 1)).toContain(`Hello, Ada, from ${server.agent.cwd}`);
      },
      E2E_TIMEOUT,
    );

    test(
      "permission-gate: a recursive delete is blocked without a UI, a plain command runs",
      async () => {
        await using server = await target.start({ extensions: [example("permission-gate.ts")] });
        const dir = join(server.agent.cwd, "build");
        const marker = join(server.agent.cwd, "ran.txt");
        writeFileSync(join(server.agent.cwd, "keep.txt"), "x");
        server.mock.enqueue(
          toolCallReply(
            { name: "bash", arguments: { command: `rm -rf ${server.agent.cwd}` }, id: "c1" },
            { name: "bash", arguments: { command: `echo ok > ${marker}` }, id: "c2" },
          ),
          textReply("done"),
        );
        const { threadId } = await startThread(server.client, server.agent.cwd);
        await turn(server.client, threadId, "clean");
        expect(existsSync(join(server.agent.cwd, "keep.txt"))).toBe(true);
        expect(existsSync(marker)).toBe(true);
        expect(body(server, 1)).toContain("Blocked by the permission gate: the command recursive delete");
        expect(existsSync(dir)).toBe(false);
      },
      E2E_TIMEOUT,
    );

    test(
      "protected-paths: writing .env is refused, an ordinary file is written",
      async () => {
        await using server = await target.start({ extensions: [example("protected-paths.ts")] });
        server.mock.enqueue(
          toolCallReply(
            { name: "write", arguments: { path: ".env", content: "SECRET=1\n" }, id: "c1" },
            { name: "write", arguments: { path: "notes.txt", content: "hi\n" }, id: "c2" },
          ),
          textReply("done"),
        );
        const { threadId } = await startThread(server.client, server.agent.cwd);
        await turn(server.client, threadId, "write files");
        expect(existsSync(join(server.agent.cwd, ".env"))).toBe(false);
        expect(readFileSync(join(server.agent.cwd, "notes.txt"), "utf8")).toBe("hi\n");
        expect(body(server, 1)).toContain(".env is protected");
      },
      E2E_TIMEOUT,
    );

    test(
      "input-transform: ping is handled without the model, ?quick is rewritten",
      async () => {
        await using server = await target.start({ extensions: [example("input-transform.ts")] });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        expect((await server.client.request("turn/start", { threadId, text: "ping" })).status).toBe(
          "handled",
        );
        expect(server.mock.requests.length).toBe(0);
        expect(await transcriptOf(server.client, threadId)).toContainEqual(
          expect.objectContaining({ type: "custom", customType: "ping", data: { answered: "pong" } }),
        );
        server.mock.enqueue(textReply("42"));
        await turn(server.client, threadId, "?quick what is the answer");
        expect(body(server, 0)).toContain("Answer in one sentence: what is the answer");
      },
      E2E_TIMEOUT,
    );

    test(
      "custom-compaction: /compact stores the extension's summary with fromHook and calls no model; cancel keeps history",
      async () => {
        await using server = await target.start({
          extensions: [
            example("custom-compaction.ts"),
            join(import.meta.dir, "fixtures", "extensions", "compact-observer.ts"),
          ],
          settings: { compaction: { keepRecentTokens: 1 } },
        });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        server.mock.enqueue(textReply("first answer"), textReply("second answer"));
        await turn(server.client, threadId, "first request");
        await turn(server.client, threadId, "second request");
        const seen = recordNotifications(server.client);
        await turn(server.client, threadId, "/compact");
        expect(server.mock.requests.length).toBe(2);
        const entries = await transcriptOf(server.client, threadId);
        const compaction = entries.find((e) => e.type === "compaction")!;
        expect(compaction.fromHook).toBe(true);
        expect(compaction.summary).toBe("## Requests so far\n- first request\n- second request");
        expect(compaction.details).toEqual({ requests: 2 });
        expect(entries).toContainEqual(
          expect.objectContaining({
            customType: "compacted",
            data: { fromExtension: true, reason: "manual" },
          }),
        );
        const item = seen.find(
          (n) =>
            n.method === "item/completed" && (n.params as { item: ThreadItem }).item.type === "compaction",
        );
        expect(item).toBeDefined();
        expect((item!.params as { item: { summary: string } }).item.summary).toContain("first request");

        server.mock.enqueue(textReply("third answer"), textReply("fourth answer"));
        await turn(server.client, threadId, "third request");
        await turn(server.client, threadId, "fourth request");
        const before = (await transcriptOf(server.client, threadId)).filter(
          (e) => e.type === "compaction",
        ).length;
        await turn(server.client, threadId, "/compact cancel");
        const after = await transcriptOf(server.client, threadId);
        expect(after.filter((e) => e.type === "compaction").length).toBe(before);
        const failed = after.find((e) => e.customType === "compact_failed")!;
        expect(failed.data).toEqual({
          type: "session_compact_failed",
          reason: "manual",
          aborted: true,
          willRetry: false,
          fromExtension: false,
        });
      },
      E2E_TIMEOUT,
    );

    test(
      "system-prompt-command: /persona is handled and later turns' system prompt carries it",
      async () => {
        await using server = await target.start({ extensions: [example("system-prompt-command.ts")] });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const { commands } = await server.client.request("command/list", { threadId });
        expect(commands.map((c) => c.name)).toContain("persona");
        const result = await server.client.request("turn/start", {
          threadId,
          text: "/persona Always answer in French.",
        });
        expect(result.status).toBe("handled");
        server.mock.enqueue(textReply("Bonjour"));
        await turn(server.client, threadId, "hello");
        const request = server.mock.requests[0]!.body as { messages: { role: string; content: unknown }[] };
        const system = request.messages.find((m) => m.role === "system" || m.role === "developer");
        expect(JSON.stringify(system?.content)).toContain("Always answer in French.");
      },
      E2E_TIMEOUT,
    );

    test(
      "file-changes-tool: a valid report becomes the item's fileChanges, a malformed one is ignored whole",
      async () => {
        await using server = await target.start({ extensions: [example("file-changes-tool.ts")] });
        server.mock.enqueue(
          toolCallReply(
            { name: "write_note", arguments: { path: "a.md", text: "A" }, id: "c_valid" },
            { name: "write_note", arguments: { path: "b.md", text: "B", report: "broken" }, id: "c_broken" },
          ),
          textReply("done"),
        );
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const seen = recordNotifications(server.client);
        await turn(server.client, threadId, "write notes");
        const completed = (id: string) =>
          seen
            .filter((n) => n.method === "item/completed")
            .map((n) => (n.params as { item: ThreadItem }).item)
            .find((item) => item.type === "toolCall" && item.id === id) as
            | { fileChanges?: unknown }
            | undefined;
        expect(completed("c_valid")?.fileChanges).toEqual([
          { path: join(server.agent.cwd, "a.md"), kind: "add" },
        ]);
        expect(completed("c_broken")).toBeDefined();
        expect(completed("c_broken")?.fileChanges).toBeUndefined();
        expect(readFileSync(join(server.agent.cwd, "b.md"), "utf8")).toBe("B");
      },
      E2E_TIMEOUT,
    );
  });
}

test(
  "[stdio] custom-provider: its model is listed once a thread loaded it and runs a turn",
  async () => {
    const stdio = TARGETS.find((t) => t.name === "stdio")!;
    // the mock serves every wire format; the provider points at it through its env variables
    await using server = await stdio.start({
      extensions: [example("custom-provider.ts")],
      env: { LOCAL_LLM_MODEL: "local-test-model" },
      envFromMock: (mock) => ({ LOCAL_LLM_BASE_URL: mock.baseUrl }),
    });
    const { threadId } = await startThread(server.client, server.agent.cwd);
    const { models } = await server.client.request("model/list", {});
    expect(models).toContainEqual(expect.objectContaining({ provider: "local-llm", id: "local-test-model" }));
    await server.client.request("thread/settings/update", {
      threadId,
      model: { provider: "local-llm", id: "local-test-model" },
    });
    server.mock.enqueue(textReply("from the local model"));
    const done = await turn(server.client, threadId, "hi");
    expect(done.turn.status).toBe("completed");
    expect((server.mock.requests[0]!.body as { model: string }).model).toBe("local-test-model");
  },
  E2E_TIMEOUT,
);
