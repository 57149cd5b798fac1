import { describe, expect, test } from "bun:test";
import { textReply, toolCallReply } from "@knightcode/testkit";
import type { ExtensionHooks, ExtensionHostFactory } from "../src/index.ts";
import { createHarness, methods } from "./support/harness.ts";

function host(hooks: ExtensionHooks, calls: string[] = []): ExtensionHostFactory {
  return async () => ({
    hooks,
    commands: [{ name: "hello", description: "Says hello" }],
    warnings: [{ source: "extension", message: "one extension was refused" }],
    dispose: async () => {
      calls.push("dispose");
    },
  });
}

describe("extension hooks", () => {
  test("an input hook may handle the input: no turn, no item, status handled", async () => {
    await using h = await createHarness({ extensions: host({ input: async () => ({ action: "handled" }) }) });
    const { thread, warnings } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    expect(warnings).toContainEqual({ source: "extension", message: "one extension was refused" });
    const result = await h.manager.startTurn(
      { threadId: thread.id, text: "/hello", requestId: "r1" },
      h.desktop(),
    );
    expect(result).toEqual({ status: "handled", threadId: thread.id, requestId: "r1" });
    expect(methods(h.received("c1")).filter((m) => m.startsWith("item/") || m.startsWith("turn/"))).toEqual(
      [],
    );
    expect(h.server.requests.length).toBe(0);
    const { commands } = await h.manager.listCommands({ threadId: thread.id }, h.desktop());
    expect(commands.map((c) => c.name)).toEqual(["compact", "name", "new", "fork", "reload", "hello"]);
    expect(commands.at(-1)).toEqual({ name: "hello", description: "Says hello", source: "extension" });
  });

  test("a dropped assistant message is withdrawn with item/removed and absent from history", async () => {
    await using h = await createHarness({
      extensions: host({
        messageEnd: async ({ message }) => ({ action: message.role === "assistant" ? "drop" : "keep" }),
      }),
    });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(textReply("secret", 2));
    await h.manager.startTurn({ threadId: thread.id, text: "hi" }, h.desktop());
    await h.waitFor((n) => n.method === "thread/turn/completed");
    const seen = h.received("c1");
    const started = seen.find((n) => n.method === "item/started" && n.params.item.type === "agentMessage");
    const removed = seen.find((n) => n.method === "item/removed");
    expect(started && removed && started.method === "item/started" && removed.method === "item/removed").toBe(
      true,
    );
    if (started?.method === "item/started" && removed?.method === "item/removed") {
      expect(removed.params.itemId).toBe("id" in started.params.item ? started.params.item.id : "");
    }
    const read = await h.manager.readThread({ threadId: thread.id }, h.desktop());
    const types = (read.turns[0] && "items" in read.turns[0] ? (read.turns[0].items ?? []) : []).map((i) =>
      "type" in i ? i.type : "",
    );
    expect(types).toEqual(["userMessage"]);
  });

  test("hooks run at their points in order: input, before_agent_start, turn_start per model response, tool_call, tool_result, agent_end, settle", async () => {
    const calls: string[] = [];
    const note = (name: string) => async () => {
      calls.push(name);
    };
    await using h = await createHarness({
      extensions: host({
        input: async () => {
          calls.push("input");
          return { action: "continue" };
        },
        beforeAgentStart: note("before_agent_start"),
        turnStart: note("turn_start"),
        toolCall: async () => {
          calls.push("tool_call");
          return { action: "allow" };
        },
        toolResult: note("tool_result"),
        agentEnd: note("agent_end"),
        agentBeforeSettle: note("agent_before_settle"),
      }),
    });
    const { thread } = await h.manager.startThread(
      { cwd: h.dir.cwd, approvalMode: "fullAccess" },
      h.desktop(),
    );
    h.server.enqueue(toolCallReply({ name: "ls", arguments: {}, id: "call_ls" }), textReply("done"));
    await h.manager.startTurn({ threadId: thread.id, text: "list" }, h.desktop());
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(calls).toEqual([
      "input",
      "before_agent_start",
      "turn_start",
      "tool_call",
      "tool_result",
      "turn_start",
      "agent_end",
      "agent_before_settle",
    ]);
  });

  test("a throwing hook becomes a subscriber warning and the turn carries on", async () => {
    await using h = await createHarness({
      extensions: host({
        turnStart: async () => {
          throw new Error("boom");
        },
      }),
    });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(textReply("fine"));
    await h.manager.startTurn({ threadId: thread.id, text: "hi" }, h.desktop());
    const done = await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(done.method === "thread/turn/completed" && done.params.turn.status).toBe("completed");
    const warning = h.events.find((e) => e.notification.method === "warning");
    expect(warning?.audience).toBe("connections");
    expect(warning?.notification.params).toMatchObject({ source: "extension", threadId: thread.id });
  });
});
