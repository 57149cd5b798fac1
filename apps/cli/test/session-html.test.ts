import { describe, expect, test } from "bun:test";
import type { Thread, ThreadItem, Turn } from "@knightcode/app-server-protocol";
import { sessionHtml } from "../src/export/session-html.ts";

const thread: Thread = {
  id: "01a242cf-dfda-72be-a2b2-f3078818d1f3",
  cwd: "/work/p",
  createdAt: "2026-12-04T20:00:00.000Z",
  updatedAt: "2026-12-04T20:05:00.000Z",
  archived: false,
  status: { type: "idle" },
  name: "Refactor <the> parser",
};
const turn = (id: string, items: ThreadItem[], over: Partial<Turn> = {}) => ({
  id,
  status: "completed" as const,
  startedAt: 1,
  ...over,
  items,
});

describe("the exported page", () => {
  test("compactions, branch summaries and failed turns are shown; what the model and the user wrote is escaped", () => {
    const html = sessionHtml({
      thread,
      exportedAt: Date.parse("2026-12-04T21:00:00Z"),
      turns: [
        turn("t1", [
          { id: "t1:0", type: "userMessage", text: "<img src=x onerror=alert(1)>" },
          {
            id: "t1:1",
            type: "agentMessage",
            text: "raw <script>alert(1)</script> and [a link](javascript:alert(1))",
          },
        ]),
        turn("t2", [
          { id: "t2:0", type: "compaction", summary: "Goal: **parse** faster", tokensBefore: 123456 },
          {
            id: "t2:1",
            type: "extension",
            customType: "branch_summary",
            text: "Tried the lexer rewrite; dropped it.",
          },
        ]),
        turn("t3", [{ id: "t3:0", type: "userMessage", text: "again" }], {
          status: "failed",
          error: { kind: "network", message: "Connection error." },
        }),
      ],
    });
    expect(html).toContain("<title>Refactor &lt;the&gt; parser</title>");
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("javascript:");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("Compacted · 123,456 tokens before");
    expect(html).toContain("<strong>parse</strong>");
    expect(html).toContain('<span class="role">Branch summary</span>');
    expect(html).toContain("Tried the lexer rewrite; dropped it.");
    expect(html).toContain("Turn failed (network): Connection error.");
    expect(html).not.toContain("System prompt");
  });

  test("with the system context: the prompt and each tool's schema, folded", () => {
    const html = sessionHtml({
      thread,
      exportedAt: 0,
      turns: [],
      system: {
        systemPrompt: "You are KnightCode. <rules>",
        tools: [
          { name: "read", description: "Read a file", parameters: { type: "object", required: ["path"] } },
        ],
      },
    });
    expect(html).toContain("<details><summary>System prompt</summary>");
    expect(html).toContain("You are KnightCode. &lt;rules&gt;");
    expect(html).toContain("<details><summary>Tools (1)</summary>");
    expect(html).toContain("&quot;required&quot;: [");
  });
});
