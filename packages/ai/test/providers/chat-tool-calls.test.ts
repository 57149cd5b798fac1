import { describe, expect, test } from "bun:test";
import { AssistantMessageBuilder, DEMO_MODEL, type ToolCall } from "../../src/index.ts";
import { ChatToolCalls, type ToolCallFragment } from "../../src/providers/chat-tool-calls.ts";

/** Feeds deltas' `tool_calls` and returns the finished calls. */
function assemble(deltas: ToolCallFragment[][]): ToolCall[] {
  const builder = new AssistantMessageBuilder(DEMO_MODEL, () => {});
  const calls = new ChatToolCalls(builder, () => {});
  for (const delta of deltas) calls.add(delta);
  calls.close();
  return builder.message.content.filter((c): c is ToolCall => c.type === "toolCall");
}

describe("Chat Completions tool-call assembly", () => {
  test("fragments with neither id nor index continue the call at their position", () => {
    const calls = assemble([
      [
        { id: "a", function: { name: "read", arguments: '{"path":' } },
        { id: "b", function: { name: "ls", arguments: "" } },
      ],
      [{ function: { arguments: '"x"}' } }, { function: { arguments: "{}" } }],
    ]);
    expect(calls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ["a", "read", { path: "x" }],
      ["b", "ls", {}],
    ]);
  });

  test("a call without an id gets a generated one, replaced when the server names it later", () => {
    const calls = assemble([
      [{ index: 0, function: { name: "ls", arguments: "{" } }],
      [{ index: 0, id: "late", function: { arguments: "}" } }],
      [{ index: 1, id: "", function: { name: "read", arguments: "{}" } }],
    ]);
    expect(calls[0]).toMatchObject({ id: "late", name: "ls", arguments: {} });
    expect(calls[1]!.id).toMatch(/^call_[0-9a-f]{24}$/);
  });

  test("the same index with a new id starts a new call; the same id continues it", () => {
    const calls = assemble([
      [{ index: 0, id: "a", function: { name: "ls", arguments: "{}" } }],
      [{ index: 0, id: "b", function: { name: "read", arguments: '{"path":' } }],
      [{ index: 0, id: "b", function: { arguments: '"n"}' } }],
    ]);
    expect(calls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ["a", "ls", {}],
      ["b", "read", { path: "n" }],
    ]);
  });

  test("arguments as an object are serialized; a whole restatement is taken once", () => {
    const calls = assemble([
      [{ index: 0, id: "a", function: { name: "read", arguments: { path: "o" } } }],
      [{ index: 1, id: "b", function: { name: "ls", arguments: '{"path":"."}' } }],
      [{ index: 1, function: { arguments: '{"path":"."}' } }],
    ]);
    expect(calls.map((c) => c.arguments)).toEqual([{ path: "o" }, { path: "." }]);
  });

  test("a thought signature on a fragment stays on its call", () => {
    const calls = assemble([
      [
        {
          id: "a",
          function: { name: "ls", arguments: "{}" },
          extra_content: { google: { thought_signature: "s" } },
        },
      ],
    ]);
    expect(calls[0]!.thoughtSignature).toBe("s");
  });
});
