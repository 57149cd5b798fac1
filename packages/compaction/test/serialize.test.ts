import { describe, expect, test } from "bun:test";
import { serializeConversation, TOOL_RESULT_MAX_CHARS, truncateForSummary } from "../src/serialize.ts";
import { assistant, toolResult, user } from "./helpers.ts";

describe("serializeConversation", () => {
  test("labels each kind of line", () => {
    const reply = assistant("", {
      content: [
        { type: "thinking", thinking: "hmm" },
        { type: "text", text: "Looking." },
        { type: "toolCall", id: "1", name: "read", arguments: { path: "a.ts", limit: 5 } },
        { type: "toolCall", id: "2", name: "ls", arguments: {} },
      ],
    });
    expect(serializeConversation([user("Fix it"), reply, toolResult("contents")])).toBe(
      [
        "[User]: Fix it",
        "[Assistant thinking]: hmm",
        "[Assistant]: Looking.",
        '[Assistant tool calls]: read(path="a.ts", limit=5); ls()',
        "[Tool result]: contents",
      ].join("\n\n"),
    );
  });

  test("tool results are cut at 2,000 characters with a marker naming how many were cut", () => {
    const text = serializeConversation([toolResult(2500)]);
    expect(text).toBe(`[Tool result]: ${"r".repeat(2000)}\n\n[... 500 more characters truncated]`);
    expect(TOOL_RESULT_MAX_CHARS).toBe(2000);
    expect(truncateForSummary("r".repeat(2000))).toBe("r".repeat(2000));
  });

  test("user-role context (bash, custom, summaries) reads as user lines; excluded bash runs are dropped", () => {
    const lines = serializeConversation([
      {
        role: "bashExecution",
        command: "ls",
        output: "a",
        exitCode: 2,
        cancelled: false,
        truncated: false,
        timestamp: 1,
      },
      {
        role: "bashExecution",
        command: "secret",
        output: "x",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        excludeFromContext: true,
        timestamp: 1,
      },
      {
        role: "custom",
        customType: "n",
        content: [{ type: "text", text: "note" }],
        display: true,
        timestamp: 1,
      },
      { role: "branchSummary", summary: "B", fromId: "x", timestamp: 1 },
    ]);
    expect(lines).toBe(
      "[User]: Ran `ls` (exit code 2)\na\n\n[User]: note\n\n[User]: Summary of another branch:\nB",
    );
  });
});
