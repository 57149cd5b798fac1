import { describe, expect, test } from "bun:test";
import type { ItemToolCallRequestApprovalParams } from "@knightcode/app-server-protocol";
import { approvalDetail } from "../src/interactive/approval-card.ts";
import { approvalAnswer, approvalChoices } from "../src/interactive/approval-prompt.ts";

const request = (
  decisions: ItemToolCallRequestApprovalParams["decisions"],
): ItemToolCallRequestApprovalParams => ({
  threadId: "t",
  turnId: "u",
  itemId: "i",
  toolName: "bash",
  input: { command: "git status" },
  decisions,
  prefix: "git status",
});

describe("the approval prompt's answers", () => {
  test("Esc declines without a message: the one answer that is safe whatever the server offered", () => {
    // an unoffered decline counts as a decline (spec), while the first offered decision may be an accept
    expect(approvalAnswer({ cancelled: true })).toEqual({ decision: "decline" });
  });

  test("a chosen decline carries its trimmed message, cut to the protocol's bound; an empty one carries none", () => {
    expect(approvalAnswer({ value: "decline", text: "  use the local file  " })).toEqual({
      decision: "decline",
      message: "use the local file",
    });
    expect(approvalAnswer({ value: "decline", text: "x".repeat(5_000) })).toEqual({
      decision: "decline",
      message: "x".repeat(4_000),
    });
    expect(approvalAnswer({ value: "decline", text: "   " })).toEqual({ decision: "decline" });
  });

  test("the choices are exactly the offered decisions, in the server's order, the prefix named", () => {
    const choices = approvalChoices(request(["acceptPrefixForSession", "accept", "decline"]));
    expect(choices.map((c) => c.value)).toEqual(["acceptPrefixForSession", "accept", "decline"]);
    expect(choices[0]!.label).toContain("`git status`");
  });
});

describe("the approval card's detail", () => {
  const read = async () => new TextEncoder().encode("@@ -1 +1 @@\n-a\n+b\n");
  const params = (over: Partial<ItemToolCallRequestApprovalParams>): ItemToolCallRequestApprovalParams => ({
    threadId: "t",
    turnId: "u",
    itemId: "i",
    toolName: "write",
    decisions: ["accept", "decline"],
    ...over,
  });
  const plain = (lines: string[]) => lines.map((l) => l.replace(/\u001b\[[0-9;]*m/g, ""));

  test("terminal controls in what the model wrote are drawn as nothing, so the card cannot be redrawn", async () => {
    const detail = await approvalDetail(
      params({
        input: { path: "x", content: "safe\u001b[2J\u001b[1A\rhidden\n" },
        preview: { type: "fileChange", path: "/w/x", kind: "add" },
      }),
      read,
    );
    expect(plain(detail)).toEqual(["+ new file /w/x (1 line)", "safehidden"]);
  });

  test("a diff sent by reference is read; an MCP tool names its server and shows its arguments", async () => {
    const change = await approvalDetail(
      params({
        toolName: "edit",
        input: { path: "x", edits: [] },
        preview: {
          type: "fileChange",
          path: "/w/x",
          kind: "modify",
          diffRef: { type: "payloadRef", id: "r", byteLength: 20 },
        },
      }),
      read,
    );
    expect(plain(change)).toEqual(["~ modified /w/x", "@@ -1 +1 @@", "-a", "+b"]);
    const tool = await approvalDetail(
      params({
        toolName: "mcp__web__add",
        input: { a: 1 },
        preview: { type: "tool", source: "mcp", server: "web", tool: "add" },
      }),
      read,
    );
    expect(plain(tool)).toEqual(["add · MCP server web", "{", '  "a": 1', "}"]);
  });

  test("a sampling request shows the server, the token cap, the system prompt and every message, controls drawn as nothing", async () => {
    const detail = await approvalDetail(
      params({
        toolName: "mcp__everything__sampling",
        decisions: ["accept", "decline", "cancel"],
        preview: {
          type: "sampling",
          server: "everything",
          systemPrompt: "Be brief.",
          messages: [
            { role: "user", text: "Write a haiku\u001b[2J" },
            { role: "assistant", text: "Bees hum" },
          ],
          maxTokens: 40,
        },
      }),
      read,
    );
    expect(plain(detail)).toEqual([
      "MCP server everything asks the model (up to 40 tokens)",
      "system: Be brief.",
      "user: Write a haiku",
      "assistant: Bees hum",
    ]);
  });

  test("an edit that would fail says so", async () => {
    const detail = await approvalDetail(
      params({
        toolName: "edit",
        preview: { type: "fileChange", path: "/w/x", kind: "modify", error: "oldText not found in x" },
      }),
      read,
    );
    expect(plain(detail)).toEqual(["~ /w/x", "This call would fail: oldText not found in x"]);
  });
});
