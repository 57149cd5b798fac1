import { describe, expect, test } from "bun:test";
import type { ToolResultMessage } from "@knightcode/ai";
import { textReply, toolCallReply } from "@knightcode/testkit";
import Type from "typebox";
import type { AgentEvent, AgentTool } from "../src/index.ts";
import { deferred, nextEvent } from "./helpers/deferred.ts";
import { gatedTool } from "./helpers/gated-tool.ts";
import { textOf, user } from "./helpers/messages.ts";
import { mockAgent, sent, useMockServer } from "./helpers/mock-model.ts";

const mock = useMockServer();

function calls(...args: Record<string, unknown>[]) {
  return toolCallReply(...args.map((a, i) => ({ id: `call-${i}`, name: "wait", arguments: a })));
}

describe("runToolBatch", () => {
  test("mutations of the same file run one after another, in call order", async () => {
    const t = gatedTool();
    mock().enqueue(
      calls({ key: "a", path: "/f" }, { key: "b", path: "/f" }, { key: "c", path: "/g" }),
      textReply("ok"),
    );
    const agent = mockAgent(mock(), { tools: [t.tool] });
    const run = agent.prompt(user("go"));
    await t.started("a");
    // c was registered after b; once c runs, b would have started too were it not serialized.
    await t.started("c");
    expect(t.order).toEqual(["start a", "start c"]);
    t.release("b");
    t.release("c");
    t.release("a");
    await run;
    expect(t.order.indexOf("start b")).toBeGreaterThan(t.order.indexOf("end a"));
    expect(sent(mock().requests[1]).filter((l) => l.startsWith("tool"))).toEqual([
      "tool#call-0: released a",
      "tool#call-1: released b",
      "tool#call-2: released c",
    ]);
  });

  test("beforeToolCall can block a call; the model reads the reason and the tool never runs", async () => {
    const t = gatedTool();
    mock().enqueue(calls({ key: "a" }), textReply("ok"));
    const seen: string[] = [];
    const agent = mockAgent(mock(), {
      tools: [t.tool],
      beforeToolCall: (call) => {
        seen.push(`${call.tool.name}:${JSON.stringify(call.args)}`);
        return { action: "block", reason: "Declined by the user: use another file" };
      },
    });
    const events: AgentEvent[] = [];
    agent.subscribe((e) => events.push(e));
    await agent.prompt(user("go"));
    expect(seen).toEqual(['wait:{"key":"a"}']);
    expect(t.order).toEqual([]);
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end).toMatchObject({ isError: true, blockedReason: "Declined by the user: use another file" });
    expect(sent(mock().requests[1]).at(-1)).toBe("tool#call-0: Declined by the user: use another file");
  });

  test("approvals are asked one at a time, in call order, and an approved call starts at once", async () => {
    const t = gatedTool();
    mock().enqueue(calls({ key: "a" }, { key: "b" }), textReply("ok"));
    const asked: string[] = [];
    const answers = [deferred<"allow">(), deferred<"allow">()];
    const agent = mockAgent(mock(), {
      tools: [t.tool],
      beforeToolCall: async (call) => {
        asked.push(call.toolCall.id);
        return { action: await answers[asked.length - 1]!.promise };
      },
    });
    const run = agent.prompt(user("go"));
    await nextEvent(agent, (e) => e.type === "tool_execution_start");
    expect(asked).toEqual(["call-0"]);
    answers[0]!.resolve("allow");
    await t.started("a");
    expect(asked).toEqual(["call-0", "call-1"]);
    answers[1]!.resolve("allow");
    await t.started("b");
    t.release("a");
    t.release("b");
    await run;
    expect(agent.messages.filter((m) => m.role === "toolResult")).toHaveLength(2);
  });

  test("afterToolCall can replace a result and partial updates are forwarded", async () => {
    const tool: AgentTool = {
      name: "stream",
      description: "s",
      parameters: Type.Object({}),
      async execute(_args, ctx) {
        ctx.onUpdate({ content: [{ type: "text", text: "partial" }] });
        return { content: [{ type: "text", text: "original" }], details: { n: 1 } };
      },
    };
    mock().enqueue(toolCallReply({ name: "stream", arguments: {} }), textReply("ok"));
    const agent = mockAgent(mock(), {
      tools: [tool],
      afterToolCall: (_call, result) => ({ ...result, content: [{ type: "text", text: "replaced" }] }),
    });
    const updates: unknown[] = [];
    agent.subscribe((e) => {
      if (e.type === "tool_execution_update") updates.push(e.partialResult.content);
    });
    await agent.prompt(user("go"));
    const result = agent.messages.find((m): m is ToolResultMessage => m.role === "toolResult")!;
    expect(textOf(result)).toBe("replaced");
    expect(result.details).toEqual({ n: 1 });
    expect(updates).toEqual([[{ type: "text", text: "partial" }]]);
  });

  test("a tool that throws yields an error result with its message", async () => {
    const tool: AgentTool = {
      name: "bad",
      description: "b",
      parameters: Type.Object({}),
      execute: async () => {
        throw new Error("disk on fire");
      },
    };
    mock().enqueue(toolCallReply({ name: "bad", arguments: {} }), textReply("ok"));
    const agent = mockAgent(mock(), { tools: [tool] });
    await agent.prompt(user("go"));
    const result = agent.messages.find((m): m is ToolResultMessage => m.role === "toolResult")!;
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "disk on fire" }] });
  });

  test("a tool that resolves without result content yields an error result", async () => {
    const tool: AgentTool = {
      name: "empty",
      description: "e",
      parameters: Type.Object({}),
      execute: async () => undefined as never,
    };
    mock().enqueue(toolCallReply({ name: "empty", arguments: {} }), textReply("ok"));
    const agent = mockAgent(mock(), { tools: [tool] });
    await agent.prompt(user("go"));
    const result = agent.messages.find((m): m is ToolResultMessage => m.role === "toolResult")!;
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: 'Tool "empty" returned no result content.' }],
    });
    expect(mock().requests).toHaveLength(2);
  });

  test("a beforeToolCall hook that throws blocks the call instead of crashing the run", async () => {
    const t = gatedTool();
    mock().enqueue(calls({ key: "a" }), textReply("ok"));
    const agent = mockAgent(mock(), {
      tools: [t.tool],
      beforeToolCall: () => {
        throw new Error("gate exploded");
      },
    });
    await agent.prompt(user("go"));
    expect(t.order).toEqual([]);
    expect(sent(mock().requests[1]).at(-1)).toBe("tool#call-0: Tool call blocked: gate exploded");
  });
});
