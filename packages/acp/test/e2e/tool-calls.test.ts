import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PermissionOptionKind, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { acpWorld, startAcp } from "../support/acp-child.ts";

const TIMEOUT = 60_000;

/** A permission answer that selects the offered option of `kind`. */
function selectOption(kind: PermissionOptionKind) {
  return (request: RequestPermissionRequest) => ({
    outcome: {
      outcome: "selected" as const,
      optionId: request.options.find((o) => o.kind === kind)!.optionId,
    },
  });
}

describe("knightcode acp: tool calls and permissions", () => {
  test(
    "an allowed write is a tool_call with a diff (oldText null for a new file), pending → in_progress → completed, and the file is written",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      world.mock.enqueue(
        toolCallReply({ id: "call-w", name: "write", arguments: { path: "note.txt", content: "hello\n" } }),
        textReply("Written."),
      );
      const answer = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "write a note" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      const path = join(world.agent.cwd, "note.txt");
      expect(readFileSync(path, "utf8")).toBe("hello\n");
      const [call] = acp.updatesOf(sessionId, "tool_call");
      expect(call).toMatchObject({
        toolCallId: "call-w",
        kind: "edit",
        title: "Write note.txt",
        status: "pending",
        locations: [{ path }],
        rawInput: { path: "note.txt", content: "hello\n" },
        content: [{ type: "diff", path, oldText: null, newText: "hello\n" }],
      });
      // the permission request showed the same call and the server's offered decisions
      expect(acp.permissionRequests.length).toBe(1);
      const asked = acp.permissionRequests[0]!;
      expect(asked.toolCall.toolCallId).toBe("call-w");
      expect(asked.toolCall.content).toEqual([{ type: "diff", path, oldText: null, newText: "hello\n" }]);
      expect(asked.options.map((o) => o.kind)).toContain("allow_once");
      expect(asked.options.map((o) => o.kind)).toContain("reject_once");
      const statuses = acp.updatesOf(sessionId, "tool_call_update").map((u) => u.status);
      expect(statuses).toEqual(["in_progress", "completed"]);
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "a write over an existing file shows its old text, and an edit shows each replacement",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const path = join(world.agent.cwd, "a.txt");
      writeFileSync(path, "one\ntwo\n");
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      await acp.agent.request("session/set_mode", { sessionId, modeId: "autoEdit" });
      world.mock.enqueue(
        toolCallReply({ id: "call-1", name: "write", arguments: { path: "a.txt", content: "uno\ntwo\n" } }),
        toolCallReply({
          id: "call-2",
          name: "edit",
          arguments: { path: "a.txt", edits: [{ oldText: "two", newText: "dos" }] },
        }),
        textReply("Done."),
      );
      expect(
        (await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] }))
          .stopReason,
      ).toBe("end_turn");
      expect(readFileSync(path, "utf8")).toBe("uno\ndos\n");
      const calls = acp.updatesOf(sessionId, "tool_call");
      expect(calls.map((c) => c.content)).toEqual([
        [{ type: "diff", path, oldText: "one\ntwo\n", newText: "uno\ntwo\n" }],
        [{ type: "diff", path, oldText: "two", newText: "dos" }],
      ]);
      // autoEdit: no permission requests for edits
      expect(acp.permissionRequests).toEqual([]);
      expect(acp.updatesOf(sessionId, "tool_call_update").map((u) => [u.toolCallId, u.status])).toEqual([
        ["call-1", "in_progress"],
        ["call-1", "completed"],
        ["call-2", "in_progress"],
        ["call-2", "completed"],
      ]);
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "an edit's permission request carries the diff the server previewed (a hunk with its context), a bash one where it runs",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const path = join(world.agent.cwd, "a.txt");
      writeFileSync(path, "one\ntwo\nthree\n");
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      world.mock.enqueue(
        toolCallReply({
          id: "call-e",
          name: "edit",
          arguments: { path: "a.txt", edits: [{ oldText: "two", newText: "dos" }] },
        }),
        toolCallReply({ id: "call-b", name: "bash", arguments: { command: "echo hi" } }),
        textReply("Done."),
      );
      acp.onPermission(selectOption("reject_once"));
      await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      const [edit, bash] = acp.permissionRequests;
      expect(edit!.toolCall.content).toEqual([
        { type: "diff", path, oldText: "one\ntwo\nthree", newText: "one\ndos\nthree" },
      ]);
      expect(bash!.toolCall.content).toEqual([
        { type: "content", content: { type: "text", text: `Runs in ${world.agent.cwd}` } },
      ]);
      expect(readFileSync(path, "utf8")).toBe("one\ntwo\nthree\n");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "a rejected write is never run: the file does not exist and the call ends failed",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      acp.onPermission(selectOption("reject_once"));
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      world.mock.enqueue(
        toolCallReply({ id: "call-w", name: "write", arguments: { path: "nope.txt", content: "x" } }),
        textReply("Understood."),
      );
      const answer = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "write" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      expect(existsSync(join(world.agent.cwd, "nope.txt"))).toBe(false);
      expect(acp.updatesOf(sessionId, "tool_call_update").map((u) => u.status)).toEqual(["failed"]);
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "a rejected bash command never runs; bash is offered no session-wide allow for the tool",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      acp.onPermission(selectOption("reject_once"));
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      world.mock.enqueue(
        toolCallReply({ id: "call-b", name: "bash", arguments: { command: "touch ran.txt" } }),
        textReply("OK."),
      );
      const answer = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "run" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      expect(existsSync(join(world.agent.cwd, "ran.txt"))).toBe(false);
      const [call] = acp.updatesOf(sessionId, "tool_call");
      expect(call).toMatchObject({
        kind: "execute",
        title: "touch ran.txt",
        rawInput: { command: "touch ran.txt" },
      });
      const asked = acp.permissionRequests[0]!;
      expect(asked.options.map((o) => o.optionId)).not.toContain("acceptForSession");
      expect(acp.updatesOf(sessionId, "tool_call_update").map((u) => u.status)).toEqual(["failed"]);
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "set_mode fullAccess announces current_mode_update and later tool calls run without permission requests",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      await acp.agent.request("session/set_mode", { sessionId, modeId: "fullAccess" });
      expect(acp.updatesOf(sessionId, "current_mode_update").map((u) => u.currentModeId)).toEqual([
        "fullAccess",
      ]);
      world.mock.enqueue(
        toolCallReply({ id: "call-b", name: "bash", arguments: { command: "echo ran > ran.txt" } }),
        toolCallReply({ id: "call-w", name: "write", arguments: { path: "w.txt", content: "w" } }),
        textReply("Both done."),
      );
      const answer = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "go" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      expect(acp.permissionRequests).toEqual([]);
      expect(readFileSync(join(world.agent.cwd, "ran.txt"), "utf8")).toBe("ran\n");
      expect(readFileSync(join(world.agent.cwd, "w.txt"), "utf8")).toBe("w");
      const bashDone = acp
        .updatesOf(sessionId, "tool_call_update")
        .find((u) => u.toolCallId === "call-b" && u.status === "completed");
      expect(bashDone).toBeDefined();
      // the mode is the thread's: a new process sees it
      const listed = await acp.agent.request("session/load", {
        sessionId,
        cwd: world.agent.cwd,
        mcpServers: [],
      });
      expect(listed.modes?.currentModeId).toBe("fullAccess");
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "set_mode with an unknown mode is invalid params and changes nothing",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world);
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      const error = await acp.agent.request("session/set_mode", { sessionId, modeId: "yolo" }).then(
        () => undefined,
        (e: unknown) => e as { code: number },
      );
      expect(error?.code).toBe(-32602);
      expect(acp.updatesOf(sessionId, "current_mode_update")).toEqual([]);
      world.mock.enqueue(toolCallReply({ name: "bash", arguments: { command: "true" } }), textReply("ok"));
      await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      expect(acp.permissionRequests.length).toBe(1);
      expect(acp.schemaProblems()).toEqual([]);
    },
    TIMEOUT,
  );
});
