import { describe, expect, test } from "bun:test";
import type { Turn } from "@knightcode/app-server-protocol";
import { replayUpdates } from "../src/history-replay.ts";

describe("history replay", () => {
  test("items become chunks and final tool calls in order; empty texts are skipped", () => {
    const turns: Turn[] = [
      {
        id: "t1",
        status: "completed",
        startedAt: 1,
        items: [
          {
            id: "t1:0",
            type: "userMessage",
            text: "look",
            images: [{ mimeType: "image/png", data: "AAA=" }],
          },
          { id: "t1:1", type: "reasoning", text: "thinking" },
          { id: "t1:2", type: "agentMessage", text: "" },
          {
            id: "c1",
            type: "toolCall",
            toolName: "write",
            input: { path: "n.txt", content: "x" },
            status: "completed",
            output: "Created n.txt",
            fileChanges: [{ path: "/p/n.txt", kind: "add" }],
          },
          {
            id: "c2",
            type: "toolCall",
            toolName: "write",
            input: { path: "o.txt", content: "y" },
            status: "declined",
            fileChanges: [],
          },
          { id: "t1:3", type: "compaction", summary: "earlier", tokensBefore: 10 },
        ],
      },
    ];
    const updates = replayUpdates(turns, "/p");
    expect(updates.map((u) => u.sessionUpdate)).toEqual([
      "user_message_chunk",
      "user_message_chunk",
      "agent_thought_chunk",
      "tool_call",
      "tool_call",
      "agent_message_chunk",
    ]);
    expect(updates[1]).toEqual({
      sessionUpdate: "user_message_chunk",
      content: { type: "image", mimeType: "image/png", data: "AAA=" },
    });
    expect(updates[3]).toMatchObject({
      toolCallId: "c1",
      status: "completed",
      content: [
        { type: "diff", path: "/p/n.txt", oldText: null, newText: "x" },
        { type: "content", content: { type: "text", text: "Created n.txt" } },
      ],
    });
    // a saved write over an existing file has no old text to show: no diff
    expect(updates[4]).toMatchObject({ toolCallId: "c2", status: "failed", content: [] });
  });
});
