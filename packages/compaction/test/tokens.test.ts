import { describe, expect, test } from "bun:test";
import type { AgentMessage } from "@knightcode/session-store";
import {
  estimateContextTokens,
  estimateMessageTokens,
  IMAGE_CHARS,
  messageChars,
  usageContextTokens,
} from "../src/tokens.ts";
import { assistant, toolCall, toolResult, usage, user } from "./helpers.ts";

describe("estimateMessageTokens", () => {
  test("counts characters / 4, rounded up", () => {
    expect(estimateMessageTokens(user(400))).toBe(100);
    expect(estimateMessageTokens(user(401))).toBe(101);
    expect(estimateMessageTokens(assistant(7))).toBe(2);
  });

  test("an image costs 4,800 characters in user and tool-result content", () => {
    const image = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
    const withImage: AgentMessage = {
      role: "user",
      content: [{ type: "text", text: "abcd" }, image],
      timestamp: 1,
    };
    expect(messageChars(withImage)).toBe(4 + IMAGE_CHARS);
    expect(estimateMessageTokens(withImage)).toBe(1201);
    const result: AgentMessage = {
      role: "toolResult",
      toolCallId: "c",
      toolName: "read",
      content: [image],
      isError: false,
      timestamp: 1,
    };
    expect(estimateMessageTokens(result)).toBe(1200);
  });

  test("tool calls count name plus JSON arguments; thinking counts", () => {
    const call = toolCall("read", { path: "a.ts" });
    expect(messageChars(call)).toBe("read".length + JSON.stringify({ path: "a.ts" }).length);
    const thinking = assistant("", { content: [{ type: "thinking", thinking: "x".repeat(8) }] });
    expect(estimateMessageTokens(thinking)).toBe(2);
  });

  test("bash executions and summaries count their text", () => {
    const bash: AgentMessage = {
      role: "bashExecution",
      command: "ls",
      output: "ab",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: 1,
    };
    expect(estimateMessageTokens(bash)).toBe(1);
    expect(
      estimateMessageTokens({
        role: "compactionSummary",
        summary: "s".repeat(9),
        tokensBefore: 1,
        timestamp: 1,
      }),
    ).toBe(3);
    expect(
      estimateMessageTokens({ role: "branchSummary", summary: "s".repeat(4), fromId: "x", timestamp: 1 }),
    ).toBe(1);
    expect(estimateMessageTokens(toolResult(12))).toBe(3);
  });
});

describe("estimateContextTokens", () => {
  test("last successful usage plus characters/4 of what follows", () => {
    const messages = [user(400), assistant(4, { usage: usage(1000, 50) }), toolResult(400), user(40)];
    expect(estimateContextTokens(messages)).toEqual({
      tokens: 1050 + 100 + 10,
      usageTokens: 1050,
      trailingTokens: 110,
      lastUsageIndex: 1,
    });
  });

  test("aborted and errored responses do not supply usage", () => {
    const messages = [
      assistant(4, { usage: usage(500) }),
      user(40),
      assistant(8, { usage: usage(9999), stopReason: "error" }),
      assistant(8, { usage: usage(9999), stopReason: "aborted" }),
    ];
    const estimate = estimateContextTokens(messages);
    expect(estimate.lastUsageIndex).toBe(0);
    expect(estimate.tokens).toBe(500 + 10 + 2 + 2);
  });

  test("without usage everything is estimated; usage before usableFrom is ignored", () => {
    expect(estimateContextTokens([user(40), user(80)]).tokens).toBe(30);
    const messages = [assistant(4, { usage: usage(5000) }), user(40)];
    expect(estimateContextTokens(messages, 1).tokens).toBe(1 + 10);
  });

  test("usage without totalTokens falls back to the sum of its counts", () => {
    const u = { ...usage(100, 20), totalTokens: undefined, cacheRead: 5, cacheWrite: 7 };
    expect(usageContextTokens(u)).toBe(132);
  });
});
