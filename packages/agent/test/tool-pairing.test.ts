import { describe, expect, test } from "bun:test";
import {
  type AssistantMessage,
  emptyUsage,
  type Message,
  type ToolCall,
  type ToolResultMessage,
} from "@knightcode/ai";
import { textReply, toolCallReply } from "@knightcode/testkit";
import Type from "typebox";
import { type AgentTool, MISSING_RESULT_TEXT, repairToolPairs } from "../src/index.ts";
import { nextEvent } from "./helpers/deferred.ts";
import { user } from "./helpers/messages.ts";
import { mockAgent, useMockServer, WIRE_APIS } from "./helpers/mock-model.ts";
import { pairingProblems } from "./helpers/wire-pairing.ts";

const mock = useMockServer();

function call(id: string): ToolCall {
  return { type: "toolCall", id, name: "echo", arguments: {} };
}

function assistant(
  content: AssistantMessage["content"],
  stopReason: AssistantMessage["stopReason"] = "toolUse",
): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "p",
    model: "m",
    usage: emptyUsage(),
    stopReason,
    timestamp: 1,
  };
}

function result(id: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: "echo",
    content: [{ type: "text", text: `result ${id}` }],
    isError: false,
    timestamp: 2,
  };
}

/** One line per message: `user`, `assistant[a,b]`, `result a`, `placeholder a`. */
function shape(messages: readonly Message[]): string[] {
  return messages.map((m) => {
    if (m.role === "user") return "user";
    if (m.role === "toolResult") {
      const text = m.content[0]?.type === "text" ? m.content[0].text : "";
      return `${text === MISSING_RESULT_TEXT ? "placeholder" : "result"} ${m.toolCallId}`;
    }
    const calls = m.content.filter((c): c is ToolCall => c.type === "toolCall").map((c) => c.id);
    return `assistant[${calls.join(",")}]`;
  });
}

const echoTool: AgentTool = {
  name: "echo",
  description: "echo",
  parameters: Type.Object({ text: Type.String() }),
  async execute(args) {
    return { content: [{ type: "text", text: `echo:${(args as { text: string }).text}` }] };
  },
};

describe("repairToolPairs", () => {
  test("a well-paired context comes back as the same messages in the same order", () => {
    const messages: Message[] = [
      user("go"),
      assistant([call("a"), call("b")]),
      result("a"),
      result("b"),
      assistant([{ type: "text", text: "done" }], "stop"),
    ];
    const repaired = repairToolPairs(messages);
    expect(repaired).toHaveLength(messages.length);
    for (const [i, m] of repaired.entries()) expect(m).toBe(messages[i]!);
  });

  test("tool calls of an aborted or failed message are removed, and so are their results", () => {
    const aborted = assistant([{ type: "text", text: "partial" }, call("a")], "aborted");
    const repaired = repairToolPairs([
      user("go"),
      aborted,
      result("a"),
      assistant([call("b")], "error"),
      user("next"),
    ]);
    expect(shape(repaired)).toEqual(["user", "assistant[]", "user"]);
    expect((repaired[1] as AssistantMessage).content).toEqual([{ type: "text", text: "partial" }]);
    // The stored message is never changed.
    expect(aborted.content).toHaveLength(2);
  });

  test("a call without a result gets an error placeholder, in call order", () => {
    const repaired = repairToolPairs([user("go"), assistant([call("a"), call("b"), call("c")]), result("c")]);
    expect(shape(repaired)).toEqual([
      "user",
      "assistant[a,b,c]",
      "placeholder a",
      "placeholder b",
      "result c",
    ]);
    expect(repaired[2]).toMatchObject({ role: "toolResult", toolName: "echo", isError: true });
  });

  test("a message between a call and its results moves after the results", () => {
    const repaired = repairToolPairs([
      user("go"),
      assistant([call("a"), call("b")]),
      result("b"),
      user("steer"),
      result("a"),
    ]);
    expect(shape(repaired)).toEqual(["user", "assistant[a,b]", "result a", "result b", "user"]);
  });

  test("results with no call before them, and second results for a call, are dropped", () => {
    const repaired = repairToolPairs([
      result("x"),
      user("go"),
      assistant([call("a")]),
      result("a"),
      result("a"),
    ]);
    expect(shape(repaired)).toEqual(["user", "assistant[a]", "result a"]);
  });
});

describe("requests after broken tool pairs", () => {
  for (const api of WIRE_APIS) {
    test(`${api}: a prompt after a run aborted mid tool-call stream sends a valid request`, async () => {
      mock().enqueue(
        {
          steps: [{ type: "toolCall", name: "echo", arguments: { text: "a long argument" }, deltas: 6 }],
          stallAfterEvents: 5,
        },
        textReply("fresh start"),
      );
      const agent = mockAgent(mock(), { api, tools: [echoTool] });
      const run = agent.prompt(user("go"));
      await nextEvent(agent, (e) => e.type === "message_update" && e.event.type === "toolcall_delta");
      agent.abort();
      await run;
      expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
      expect(agent.messages.some((m) => m.role === "toolResult")).toBe(false);

      await agent.prompt(user("next"));
      expect(mock().requests).toHaveLength(2);
      expect(pairingProblems(mock().requests[1])).toEqual([]);
      expect(mock().requests[1]!.rawBody).toContain("next");
      expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    });

    test(`${api}: a tool result dropped by onMessageEnd is answered by a placeholder in the next request`, async () => {
      mock().enqueue(
        toolCallReply(
          { name: "echo", arguments: { text: "kept" }, id: "call_kept" },
          { name: "echo", arguments: { text: "dropped" }, id: "call_dropped" },
        ),
        textReply("ok"),
      );
      const agent = mockAgent(mock(), {
        api,
        tools: [echoTool],
        onMessageEnd: (m) => ({
          action: m.role === "toolResult" && m.toolCallId === "call_dropped" ? "drop" : "keep",
        }),
      });
      await agent.prompt(user("go"));
      expect(mock().requests).toHaveLength(2);
      const second = mock().requests[1]!;
      expect(pairingProblems(second)).toEqual([]);
      expect(second.rawBody).toContain("echo:kept");
      expect(second.rawBody).not.toContain("echo:dropped");
      expect(second.rawBody).toContain(MISSING_RESULT_TEXT);
      // The context itself is left as the hooks made it.
      expect(agent.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    });
  }
});
