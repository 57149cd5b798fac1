import { describe, expect, test } from "bun:test";
import type { ToolResultMessage } from "@knightcode/ai";
import { textReply, toolCallReply } from "@knightcode/testkit";
import Type from "typebox";
import { type Agent, AgentBusyError, type AgentEvent, type AgentTool } from "../src/index.ts";
import { deferred } from "./helpers/deferred.ts";
import { textOf, user } from "./helpers/messages.ts";
import { mockAgent, sent, useMockServer } from "./helpers/mock-model.ts";

const mock = useMockServer();

function record(agent: Agent): AgentEvent[] {
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  return events;
}

const echoTool: AgentTool = {
  name: "echo",
  description: "echo",
  parameters: Type.Object({ text: Type.String() }),
  async execute(args) {
    return { content: [{ type: "text", text: `echo:${(args as { text: string }).text}` }] };
  },
};

function countingTool(): { tool: AgentTool; runs: () => number } {
  let ran = 0;
  return {
    tool: {
      ...echoTool,
      execute: async () => {
        ran += 1;
        return { content: [] };
      },
    },
    runs: () => ran,
  };
}

describe("Agent", () => {
  test("a plain text run emits start, turn, message and end events in order", async () => {
    mock().enqueue(textReply("hello there", 2));
    const agent = mockAgent(mock());
    const events = record(agent);
    await agent.prompt(user("hi"));
    const types = events.map((e) => e.type).filter((t) => t !== "message_update");
    expect(types).toEqual([
      "agent_start",
      "turn_start",
      "message_start",
      "message_end",
      "message_start",
      "message_end",
      "turn_end",
      "agent_end",
    ]);
    const deltas = events.filter((e) => e.type === "message_update" && e.event.type === "text_delta");
    expect(deltas.length).toBe(2);
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(textOf(agent.messages[1] as never)).toBe("hello there");
    expect(sent(mock().requests[0])).toEqual(["user: hi"]);
  });

  test("tool results go back to the model and the loop stops when the model does", async () => {
    mock().enqueue(toolCallReply({ name: "echo", arguments: { text: "x" }, id: "c1" }), textReply("done"));
    const agent = mockAgent(mock(), { tools: [echoTool], systemPrompt: "be brief" });
    await agent.prompt(user("go"));
    expect(mock().requests.length).toBe(2);
    expect(sent(mock().requests[1])).toEqual(["user: go", "assistant -> echo#c1", "tool#c1: echo:x"]);
    const body = mock().requests[1]!.body as { tools: { function: { name: string } }[]; messages: unknown[] };
    expect(body.tools.map((t) => t.function.name)).toEqual(["echo"]);
    expect(body.messages[0]).toEqual({ role: "system", content: "be brief" });
  });

  test("invalid arguments and unknown tools come back as error results without running", async () => {
    const counting = countingTool();
    mock().enqueue(
      toolCallReply({ name: "echo", arguments: { wrong: 1 } }, { name: "nope", arguments: {} }),
      textReply("ok"),
    );
    const agent = mockAgent(mock(), { tools: [counting.tool] });
    await agent.prompt(user("go"));
    const results = agent.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
    expect(counting.runs()).toBe(0);
    expect(results.map((r) => r.isError)).toEqual([true, true]);
    expect(textOf(results[0]!)).toContain('Invalid arguments for tool "echo"');
    expect(textOf(results[0]!)).toContain("text");
    expect(textOf(results[1]!)).toBe('Tool "nope" not found.');
  });

  test("numeric strings are coerced to the schema's number type", async () => {
    let seen: unknown;
    const tool: AgentTool = {
      name: "n",
      description: "n",
      parameters: Type.Object({ limit: Type.Integer() }),
      execute: async (args) => {
        seen = args;
        return { content: [] };
      },
    };
    mock().enqueue(toolCallReply({ name: "n", arguments: { limit: "7" } }), textReply("ok"));
    await mockAgent(mock(), { tools: [tool] }).prompt(user("go"));
    expect(seen).toEqual({ limit: 7 });
  });

  test("a second prompt while running is refused with AgentBusyError", async () => {
    const gate = deferred();
    const started = deferred();
    const tool: AgentTool = {
      ...echoTool,
      execute: async () => {
        started.resolve();
        await gate.promise;
        return { content: [] };
      },
    };
    mock().enqueue(
      toolCallReply({ name: "echo", arguments: { text: "" } }),
      textReply("ok"),
      textReply("again"),
    );
    const agent = mockAgent(mock(), { tools: [tool] });
    const run = agent.prompt(user("one"));
    expect(agent.isRunning).toBe(true);
    await started.promise;
    await expect(agent.prompt(user("two"))).rejects.toBeInstanceOf(AgentBusyError);
    gate.resolve();
    await run;
    expect(agent.isRunning).toBe(false);
    await agent.prompt(user("three"));
    expect(textOf(agent.messages.at(-1) as never)).toBe("again");
  });

  test("queue contents are reported and can be cleared", () => {
    const agent = mockAgent(mock());
    const events = record(agent);
    agent.steer(user("s1"));
    agent.followUp(user("f1"));
    expect(agent.getQueue().steering.map((m) => textOf(m))).toEqual(["s1"]);
    expect(agent.getQueue().followUp.map((m) => textOf(m))).toEqual(["f1"]);
    const last = events.at(-1);
    expect(last?.type === "queue_update" && last.followUp.length).toBe(1);
    expect(agent.clearSteering().map((m) => textOf(m))).toEqual(["s1"]);
    expect(agent.clearFollowUps().map((m) => textOf(m))).toEqual(["f1"]);
    expect(agent.getQueue()).toEqual({ steering: [], followUp: [] });
    expect(events.at(-1)).toEqual({ type: "queue_update", steering: [], followUp: [] });
  });

  test("onMessageEnd may drop an assistant message; its tool calls never run", async () => {
    const counting = countingTool();
    mock().enqueue(toolCallReply({ name: "echo", arguments: { text: "" } }));
    const agent = mockAgent(mock(), {
      tools: [counting.tool],
      onMessageEnd: (m) => ({ action: m.role === "assistant" ? "drop" : "keep" }),
    });
    const events = record(agent);
    await agent.prompt(user("go"));
    expect(counting.runs()).toBe(0);
    expect(agent.messages.map((m) => m.role)).toEqual(["user"]);
    const ends = events.filter((e) => e.type === "message_end");
    expect(ends.map((e) => e.type === "message_end" && e.dropped)).toEqual([false, true]);
    expect(mock().requests.length).toBe(1);
  });

  test("beforeModelCall can replace the context before the request", async () => {
    mock().enqueue(textReply("ok"));
    const agent = mockAgent(mock(), {
      messages: [user("old 1"), user("old 2")],
      beforeModelCall: ({ messages }) => ({ messages: [user("summary"), ...messages.slice(-1)] }),
    });
    await agent.prompt(user("new"));
    expect(sent(mock().requests[0])).toEqual(["user: summary", "user: new"]);
    expect(agent.messages.map((m) => textOf(m as never))).toEqual(["summary", "new", "ok"]);
  });

  test("convertToLlm turns extended messages into provider messages", async () => {
    type Note = { role: "note"; text: string };
    mock().enqueue(textReply("ok"));
    const agent = mockAgent<Note>(mock(), {
      messages: [{ role: "note", text: "remember this" }],
      convertToLlm: (messages) =>
        messages.map((m) => (m.role === "note" ? user(`[note] ${(m as Note).text}`) : (m as never))),
    });
    await agent.prompt({ role: "note", text: "second" });
    expect(sent(mock().requests[0])).toEqual(["user: [note] remember this", "user: [note] second"]);
  });

  test("the API key is resolved before every request", async () => {
    mock().enqueue(textReply("a"), textReply("b"));
    let n = 0;
    const agent = mockAgent(mock(), { getApiKey: async () => `key-${++n}` });
    await agent.prompt(user("1"));
    await agent.prompt(user("2"));
    expect(mock().requests.map((r) => r.headers.authorization)).toEqual(["Bearer key-1", "Bearer key-2"]);
  });

  test("a listener that throws does not stop the run", async () => {
    mock().enqueue(textReply("fine"));
    const agent = mockAgent(mock());
    agent.subscribe(() => {
      throw new Error("bad listener");
    });
    const events = record(agent);
    await agent.prompt(user("hi"));
    expect(events.at(-1)?.type).toBe("agent_end");
  });
});
