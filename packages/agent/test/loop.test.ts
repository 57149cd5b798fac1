/** Loop behaviour through the real providers over real HTTP/SSE against the testkit mock. */
import { describe, expect, test } from "bun:test";
import type { ToolResultMessage } from "@knightcode/ai";
import { textReply, toolCallReply } from "@knightcode/testkit";
import Type from "typebox";
import {
  Agent,
  type AgentTool,
  createBashTool,
  createLocalOperations,
  defaultConvertToLlm,
} from "../src/index.ts";
import { nextEvent } from "./helpers/deferred.ts";
import { gatedTool } from "./helpers/gated-tool.ts";
import { textOf, user } from "./helpers/messages.ts";
import { mockAgent, mockModel, sent, useMockServer, WIRE_APIS } from "./helpers/mock-model.ts";
import { isDead, waitUntilDead } from "./helpers/process.ts";
import { tempDir } from "./helpers/temp-dir.ts";

const mock = useMockServer();

describe("runAgentLoop", () => {
  for (const api of WIRE_APIS) {
    test(`${api}: a steer sent during a tool batch reaches the next model call, after the tool result`, async () => {
      const gate = gatedTool();
      mock().enqueue(
        toolCallReply({ name: "wait", arguments: { key: "a" }, id: "call_a" }),
        textReply("done"),
      );
      const agent = mockAgent(mock(), { api, tools: [gate.tool] });
      const run = agent.prompt(user("start"));
      await gate.started("a");
      agent.steer(user("STEER-MARKER change of plan"));
      expect(agent.getQueue().steering.length).toBe(1);
      gate.release("a");
      await run;
      expect(mock().requests.length).toBe(2);
      expect(mock().requests[0]!.rawBody).not.toContain("STEER-MARKER");
      const second = mock().requests[1]!.rawBody;
      expect(second.indexOf("released a")).toBeGreaterThan(-1);
      expect(second.indexOf("STEER-MARKER")).toBeGreaterThan(second.indexOf("released a"));
      expect(agent.messages.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "toolResult",
        "user",
        "assistant",
      ]);
      expect(agent.getQueue().steering).toEqual([]);
    });
  }

  test("a steer that arrives while the model answers without tools gets its own model call", async () => {
    mock().enqueue(textReply("reply zero", 3), textReply("reply one"));
    const agent = mockAgent(mock());
    let steered = false;
    agent.subscribe((e) => {
      if (e.type === "message_update" && !steered) {
        steered = true;
        agent.steer(user("also this"));
      }
    });
    await agent.prompt(user("first"));
    expect(mock().requests.length).toBe(2);
    expect(sent(mock().requests[1])).toEqual(["user: first", "assistant: reply zero", "user: also this"]);
  });

  test("a steer arriving while the context is prepared makes that same call, not a later one", async () => {
    mock().enqueue(textReply("only reply"));
    let steered = false;
    const agent: Agent = mockAgent(mock(), {
      convertToLlm: async (messages) => {
        if (!steered) {
          steered = true;
          agent.steer(user("late steer"));
        }
        return defaultConvertToLlm(messages);
      },
    });
    await agent.prompt(user("first"));
    expect(mock().requests.length).toBe(1);
    expect(sent(mock().requests[0])).toEqual(["user: first", "user: late steer"]);
  });

  test("a follow-up waits until the model stops, then runs in the same run", async () => {
    const gate = gatedTool();
    mock().enqueue(
      toolCallReply({ name: "wait", arguments: { key: "a" }, id: "c1" }),
      textReply("first answer"),
      textReply("second answer"),
    );
    const agent = mockAgent(mock(), { tools: [gate.tool] });
    const ends: number[] = [];
    agent.subscribe((e) => {
      if (e.type === "agent_end") ends.push(e.messages.length);
    });
    const run = agent.prompt(user("start"));
    await gate.started("a");
    agent.followUp(user("FOLLOW-UP"));
    gate.release("a");
    await run;
    expect(mock().requests.length).toBe(3);
    // Not delivered after the tool batch: the model first finishes its own work.
    expect(sent(mock().requests[1])).toEqual(["user: start", "assistant -> wait#c1", "tool#c1: released a"]);
    expect(sent(mock().requests[2])).toEqual([
      "user: start",
      "assistant -> wait#c1",
      "tool#c1: released a",
      "assistant: first answer",
      "user: FOLLOW-UP",
    ]);
    expect(textOf(agent.messages.at(-1) as never)).toBe("second answer");
    expect(ends).toEqual([6]);
  });

  test("follow-ups in one-at-a-time mode each get their own model call", async () => {
    mock().setDefault((request) => textReply(`reply ${request.index}`));
    const agent = mockAgent(mock(), { followUpMode: "one-at-a-time" });
    agent.followUp(user("f1"));
    agent.followUp(user("f2"));
    await agent.prompt(user("p"));
    expect(mock().requests.length).toBe(3);
    expect(sent(mock().requests[2])).toEqual([
      "user: p",
      "assistant: reply 0",
      "user: f1",
      "assistant: reply 1",
      "user: f2",
    ]);
  });

  test("continue() runs from the current context without a new prompt", async () => {
    mock().enqueue(textReply("again"));
    const agent = mockAgent(mock(), { messages: [user("earlier")] });
    await agent.continue();
    expect(sent(mock().requests[0])).toEqual(["user: earlier"]);
    expect(agent.messages.length).toBe(2);
  });

  test("results of parallel tools come back to the model in call order", async () => {
    const gate = gatedTool();
    mock().enqueue(
      toolCallReply(
        { name: "wait", arguments: { key: "one" }, id: "call_1" },
        { name: "wait", arguments: { key: "two" }, id: "call_2" },
        { name: "wait", arguments: { key: "three" }, id: "call_3" },
      ),
      textReply("ok"),
    );
    const agent = mockAgent(mock(), { tools: [gate.tool] });
    const ends: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "tool_execution_end") ends.push(e.toolCallId);
    });
    const run = agent.prompt(user("go"));
    // All three run at once: each has started before any is released.
    await Promise.all([gate.started("one"), gate.started("two"), gate.started("three")]);
    gate.release("three");
    await nextEvent(agent, (e) => e.type === "tool_execution_end" && e.toolCallId === "call_3");
    gate.release("one");
    gate.release("two");
    await run;
    expect(ends[0]).toBe("call_3");
    expect(sent(mock().requests[1]).filter((line) => line.startsWith("tool"))).toEqual([
      "tool#call_1: released one",
      "tool#call_2: released two",
      "tool#call_3: released three",
    ]);
  });

  test("abort during a running bash call kills its child processes and ends the run", async () => {
    await using dir = tempDir();
    mock().enqueue(toolCallReply({ name: "bash", arguments: { command: "sleep 300 & echo $!; wait" } }));
    const agent = mockAgent(mock(), {
      tools: [createBashTool({ cwd: dir.path, ops: createLocalOperations() })],
    });
    const ended: boolean[] = [];
    agent.subscribe((e) => {
      if (e.type === "agent_end") ended.push(e.aborted);
    });
    const run = agent.prompt(user("run it"));
    const update = await nextEvent(agent, (e) => e.type === "tool_execution_update");
    const partial = update.type === "tool_execution_update" ? update.partialResult.content[0] : undefined;
    const pid = Number.parseInt(partial?.type === "text" ? partial.text : "", 10);
    expect(pid).toBeGreaterThan(0);
    expect(isDead(pid)).toBe(false);
    agent.abort();
    await run;
    await waitUntilDead(pid);
    expect(ended).toEqual([true]);
    expect(mock().requests.length).toBe(1);
    const result = agent.messages.find((m): m is ToolResultMessage => m.role === "toolResult");
    expect(result?.isError).toBe(true);
    expect(textOf(result!)).toContain("Command aborted.");
  });

  for (const api of WIRE_APIS) {
    // The mock holds a stalled stream open until the client leaves, so the run can only end
    // if the abort reached the HTTP request.
    test(`${api}: abort during the model stream cancels the request and ends the run as aborted`, async () => {
      mock().enqueue({ steps: [{ type: "text", text: "never finishes", deltas: 4 }], stallAfterEvents: 4 });
      const agent = mockAgent(mock(), { api });
      const ended: boolean[] = [];
      agent.subscribe((e) => {
        if (e.type === "agent_end") ended.push(e.aborted);
      });
      const run = agent.prompt(user("hi"));
      await nextEvent(agent, (e) => e.type === "message_update");
      agent.abort();
      await run;
      expect(ended).toEqual([true]);
      expect(mock().requests).toHaveLength(1);
      expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
    });
  }

  test("a steer that arrives during a retry wait goes out with the retried request", async () => {
    mock().enqueue({ error: { kind: "server" } }, textReply("after retry"));
    const agent: Agent = mockAgent(mock(), {
      sleep: async () => agent.steer(user("STEER during backoff")),
    });
    await agent.prompt(user("first"));
    expect(mock().requests).toHaveLength(2);
    expect(sent(mock().requests[0])).toEqual(["user: first"]);
    expect(sent(mock().requests[1])).toEqual(["user: first", "user: STEER during backoff"]);
    expect(agent.messages.map((m) => textOf(m as never))).toEqual([
      "first",
      "STEER during backoff",
      "after retry",
    ]);
  });

  test("a steer that arrives while the API key is looked up goes out with that request", async () => {
    mock().enqueue(textReply("only reply"));
    let steered = false;
    const agent: Agent = mockAgent(mock(), {
      getApiKey: async () => {
        if (!steered) {
          steered = true;
          agent.steer(user("steer during key lookup"));
        }
        return "test-key";
      },
    });
    await agent.prompt(user("first"));
    expect(mock().requests).toHaveLength(1);
    expect(sent(mock().requests[0])).toEqual(["user: first", "user: steer during key lookup"]);
  });

  test("an approval hook that answers the abort itself still decides the call's result", async () => {
    const gate = gatedTool();
    mock().enqueue(toolCallReply({ name: "wait", arguments: { key: "a" }, id: "call_a" }));
    const agent = mockAgent(mock(), {
      tools: [gate.tool],
      beforeToolCall: (_call, ctx) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener("abort", () =>
            // Answered a little later, as a cancelled server request would be.
            setTimeout(() => resolve({ action: "block", reason: "The user cancelled this tool call." }), 1),
          ),
        ),
    });
    const run = agent.prompt(user("go"));
    await nextEvent(agent, (e) => e.type === "tool_execution_start");
    agent.abort();
    await run;
    expect(gate.order).toEqual([]);
    const result = agent.messages.find((m): m is ToolResultMessage => m.role === "toolResult");
    expect(textOf(result!)).toBe("The user cancelled this tool call.");
  });

  test("abort ends the run even when a running tool ignores its signal", async () => {
    const stuck: AgentTool = {
      name: "stuck",
      description: "never returns",
      parameters: Type.Object({}),
      execute: () => new Promise(() => {}),
    };
    mock().enqueue(toolCallReply({ name: "stuck", arguments: {}, id: "call_stuck" }));
    const agent = mockAgent(mock(), { tools: [stuck], toolAbortGraceMs: 0 });
    const run = agent.prompt(user("go"));
    await nextEvent(agent, (e) => e.type === "tool_execution_start");
    agent.abort();
    await run;
    const result = agent.messages.find((m): m is ToolResultMessage => m.role === "toolResult");
    expect(result).toMatchObject({ toolCallId: "call_stuck", isError: true });
    expect(textOf(result!)).toBe("Aborted: the tool did not stop in time and was abandoned.");
    expect(mock().requests).toHaveLength(1);
  });

  test("abort while a call waits for approval ends the run without running the call", async () => {
    const gate = gatedTool();
    mock().enqueue(toolCallReply({ name: "wait", arguments: { key: "a" }, id: "call_a" }));
    const agent = mockAgent(mock(), {
      tools: [gate.tool],
      // An approval prompt that never answers and ignores the signal.
      beforeToolCall: () => new Promise(() => {}),
      toolAbortGraceMs: 0,
    });
    const run = agent.prompt(user("go"));
    await nextEvent(agent, (e) => e.type === "tool_execution_start");
    agent.abort();
    await run;
    expect(gate.order).toEqual([]);
    const result = agent.messages.find((m): m is ToolResultMessage => m.role === "toolResult");
    expect(textOf(result!)).toBe("Aborted before the tool ran.");
  });

  test("a stream function that throws ends the run with an error message instead of crashing", async () => {
    const agent = new Agent({
      model: mockModel(mock()),
      streamFn: () => {
        throw new Error("boom");
      },
    });
    await agent.prompt(user("hi"));
    expect(agent.messages.at(-1)).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "boom",
    });
  });
});

describe("terminating tools", () => {
  const finalTool: AgentTool = {
    name: "final",
    description: "Delivers the final answer",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: "saved" }], terminate: true }),
  };
  const plainTool: AgentTool = {
    name: "plain",
    description: "An ordinary tool",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: "plain result" }] }),
  };

  test("a batch whose every result terminates ends the run without another model request", async () => {
    mock().enqueue(toolCallReply({ name: "final", arguments: {}, id: "call_f" }), textReply("never sent"));
    const agent = mockAgent(mock(), { tools: [finalTool] });
    await agent.prompt(user("answer"));
    expect(mock().requests.length).toBe(1);
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
  });

  test("a batch with one result that does not terminate goes on to the next request", async () => {
    mock().enqueue(
      toolCallReply(
        { name: "final", arguments: {}, id: "call_f" },
        { name: "plain", arguments: {}, id: "call_p" },
      ),
      textReply("after both"),
    );
    const agent = mockAgent(mock(), { tools: [finalTool, plainTool] });
    await agent.prompt(user("answer"));
    expect(mock().requests.length).toBe(2);
    expect(textOf(agent.messages.at(-1)!)).toBe("after both");
  });
});
