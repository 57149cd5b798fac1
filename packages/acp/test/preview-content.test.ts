import { describe, expect, test } from "bun:test";
import { previewContent } from "../src/preview-content.ts";

describe("an approval preview as ACP permission content", () => {
  test("a sampling request is one text block naming the server, its cap, system prompt and messages", async () => {
    const content = await previewContent(
      {
        type: "sampling",
        server: "everything",
        systemPrompt: "Be brief.",
        messages: [{ role: "user", text: "Write a haiku" }],
        maxTokens: 40,
      },
      undefined,
      undefined,
    );
    expect(content).toEqual([
      {
        type: "content",
        content: {
          type: "text",
          text: "The MCP server everything asks the model (up to 40 tokens):\n\nsystem: Be brief.\n\nuser: Write a haiku",
        },
      },
    ]);
  });
});
