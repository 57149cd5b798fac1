import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  AppServerClient,
  type ItemToolCallRequestApprovalParams,
  StreamTransport,
  type ThreadItem,
} from "@knightcode/app-server-protocol";
import { knightcodeArgv, textReply, toolCallReply } from "@knightcode/testkit";
import { type AcpWorld, acpWorld, responseSeq, startAcp } from "../support/acp-child.ts";

const TIMEOUT = 60_000;

/** A session made in one `knightcode acp` process: a text turn and a turn that writes a file. */
async function sessionWithHistory(world: AcpWorld): Promise<string> {
  await using first = await startAcp(world);
  const { sessionId } = await first.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
  world.mock.enqueue(textReply("First answer."));
  await first.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "first question" }],
  });
  world.mock.enqueue(
    toolCallReply({ id: "call-w", name: "write", arguments: { path: "made.txt", content: "made\n" } }),
    textReply("Wrote it."),
  );
  await first.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "write made.txt" }],
  });
  expect(first.schemaProblems()).toEqual([]);
  expect(await first.close()).toBe(0);
  return sessionId;
}

describe("knightcode acp: session load, list, resume and close", () => {
  test(
    "session/load in a fresh process replays the whole history before answering, then continues the thread",
    async () => {
      await using world = await acpWorld();
      const sessionId = await sessionWithHistory(world);
      await using second = await startAcp(world);
      const loaded = await second.agent.request("session/load", {
        sessionId,
        cwd: world.agent.cwd,
        mcpServers: [],
      });
      expect(loaded.modes?.currentModeId).toBe("ask");
      const answered = responseSeq(
        second,
        (m) => typeof m.result === "object" && m.result !== null && "modes" in m.result,
      );
      const replay = second.lines
        .filter((l) => l.message.method === "session/update" && l.seq < answered)
        .map((l) => (l.message.params as { update: Record<string, unknown> }).update);
      const story = replay.map((u) => {
        const content = u.content as { type?: string; text?: string } | undefined;
        if (u.sessionUpdate === "tool_call") return `tool_call ${u.toolCallId} ${u.status}`;
        if (u.sessionUpdate === "usage_update") return "usage";
        return `${u.sessionUpdate} ${content?.text}`;
      });
      expect(story).toEqual([
        "user_message_chunk first question",
        "agent_message_chunk First answer.",
        "user_message_chunk write made.txt",
        "tool_call call-w completed",
        "agent_message_chunk Wrote it.",
        "usage",
      ]);
      const call = replay.find((u) => u.sessionUpdate === "tool_call")!;
      const path = join(world.agent.cwd, "made.txt");
      expect(call).toMatchObject({
        kind: "edit",
        title: "Write made.txt",
        locations: [{ path }],
        content: [
          { type: "diff", path, oldText: null, newText: "made\n" },
          { type: "content", content: { type: "text", text: "Created made.txt (5 bytes)." } },
        ],
      });
      // the loaded session continues the same thread: the model sees the earlier turns
      world.mock.enqueue(textReply("Continuing."));
      const next = await second.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "and now?" }],
      });
      expect(next.stopReason).toBe("end_turn");
      const sent = JSON.stringify(world.mock.requests.at(-1)!.body);
      expect(sent).toContain("First answer.");
      expect(sent).toContain("and now?");
      expect(second.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "a session made through ACP is listed and readable through knightcode app-server",
    async () => {
      await using world = await acpWorld();
      const sessionId = await sessionWithHistory(world);
      const child = Bun.spawn(knightcodeArgv(["app-server"]), {
        cwd: world.agent.root,
        env: { ...process.env, ...world.agent.env },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      const app = new AppServerClient(new StreamTransport({ readable: child.stdout, writable: child.stdin }));
      await app.connect();
      await app.initialize({ clientInfo: { name: "acp-test" } });
      const listed = await app.request("thread/list", {});
      expect(listed.threads.map((t) => [t.id, t.cwd])).toEqual([[sessionId, world.agent.cwd]]);
      const read = await app.request("thread/read", { threadId: sessionId });
      expect(read.turns.length).toBe(2);
      const items = (read.turns as { items?: ThreadItem[] }[]).flatMap((t) => t.items ?? []);
      expect(items.map((i) => i.type)).toEqual([
        "userMessage",
        "agentMessage",
        "userMessage",
        "toolCall",
        "agentMessage",
      ]);
      // and it resumes there too (the ACP process released it)
      const resumed = await app.request("thread/resume", { threadId: sessionId });
      expect(resumed.thread.approvalMode).toBe("ask");
      const approvals: ItemToolCallRequestApprovalParams[] = [];
      app.onRequest("item/toolCall/requestApproval", (params) => {
        approvals.push(params);
        return { decision: "accept" };
      });
      child.stdin.end();
      expect(await child.exited).toBe(0);
      expect(approvals).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "session/load replays an image too large to travel inline (the server sends it by reference)",
    async () => {
      await using world = await acpWorld();
      // a PNG signature and header, padded past the 64 KiB inline limit with an ancillary chunk
      const header = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
      const png = Buffer.concat([header, Buffer.alloc(96 * 1024, 7)]).toString("base64");
      let sessionId: string;
      {
        await using first = await startAcp(world);
        ({ sessionId } = await first.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] }));
        world.mock.enqueue(textReply("A big picture."));
        await first.agent.request("session/prompt", {
          sessionId,
          prompt: [
            { type: "text", text: "look" },
            { type: "image", mimeType: "image/png", data: png },
          ],
        });
        expect(await first.close()).toBe(0);
      }
      await using second = await startAcp(world);
      await second.agent.request("session/load", { sessionId, cwd: world.agent.cwd, mcpServers: [] });
      const images = second.lines
        .filter((l) => l.message.method === "session/update")
        .map((l) => (l.message.params as { update: Record<string, unknown> }).update)
        .filter((u) => u.sessionUpdate === "user_message_chunk")
        .map((u) => u.content as { type: string; mimeType?: string; data?: string })
        .filter((c) => c.type === "image");
      expect(images).toEqual([{ type: "image", mimeType: "image/png", data: png }]);
      expect(second.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "session/load and session/resume of an unknown session answer resource-not-found",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      for (const method of ["session/load", "session/resume"] as const) {
        const error = await acp.agent
          .request(method, { sessionId: "00000000-no-such-thread", cwd: world.agent.cwd, mcpServers: [] })
          .then(
            () => undefined,
            (e: unknown) => e as { code: number; data: { sessionId?: string } },
          );
        expect(error?.code).toBe(-32002);
      }
      const prompt = await acp.agent
        .request("session/prompt", { sessionId: "never-made", prompt: [{ type: "text", text: "hi" }] })
        .then(
          () => undefined,
          (e: unknown) => e as { code: number; data: { sessionId?: string } },
        );
      expect(prompt?.code).toBe(-32002);
      expect(prompt?.data.sessionId).toBe("never-made");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "session/list lists sessions with titles and filters by cwd; resume reattaches without replay; close ends the session",
    async () => {
      await using world = await acpWorld();
      const sessionId = await sessionWithHistory(world);
      await using acp = await startAcp(world);
      const all = await acp.agent.request("session/list", {});
      expect(all.sessions).toMatchObject([{ sessionId, cwd: world.agent.cwd, title: "first question" }]);
      expect((await acp.agent.request("session/list", { cwd: world.agent.root })).sessions).toEqual([]);
      const resumed = await acp.agent.request("session/resume", { sessionId, cwd: world.agent.cwd });
      expect(resumed.modes?.currentModeId).toBe("ask");
      expect(acp.updatesOf(sessionId, "user_message_chunk")).toEqual([]);
      world.mock.enqueue(textReply("Resumed."));
      expect(
        (await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "more" }] }))
          .stopReason,
      ).toBe("end_turn");
      expect(await acp.agent.request("session/close", { sessionId })).toEqual({});
      const after = await acp.agent
        .request("session/prompt", { sessionId, prompt: [{ type: "text", text: "gone?" }] })
        .then(
          () => undefined,
          (e: unknown) => e as { code: number },
        );
      expect(after?.code).toBe(-32002);
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );
});
