import { describe, expect, test } from "bun:test";
import {
  type Context,
  DEMO_MODEL,
  planDemoReply,
  streamModel,
  type ToolDefinition,
} from "../../src/index.ts";

const tools: ToolDefinition[] = ["ls", "read"].map((name) => ({ name, description: name, parameters: {} }));
const ask = (text: string, withTools = true): Context => ({
  messages: [{ role: "user", content: text, timestamp: 1 }],
  ...(withTools ? { tools } : {}),
});

describe("offline demo model", () => {
  test("streams a reply in several deltas that says it is the offline demo", async () => {
    const stream = streamModel(DEMO_MODEL, ask("hi there"));
    let deltas = 0;
    for await (const event of stream) if (event.type === "text_delta") deltas++;
    const message = await stream.result();
    expect(deltas).toBeGreaterThan(3);
    expect(message.stopReason).toBe("stop");
    const text = message.content[0]?.type === "text" ? message.content[0].text : "";
    expect(text).toContain("offline demo");
    expect(message.usage.cost.total).toBe(0);
  });

  test("is deterministic", async () => {
    const a = await streamModel(DEMO_MODEL, ask("hello")).result();
    const b = await streamModel(DEMO_MODEL, ask("hello")).result();
    expect(a.content).toEqual(b.content);
  });

  test("asking about the directory calls ls", async () => {
    const message = await streamModel(DEMO_MODEL, ask("What files are in this directory?")).result();
    expect(message.stopReason).toBe("toolUse");
    expect(message.content.at(-1)).toMatchObject({ type: "toolCall", name: "ls", arguments: { path: "." } });
  });

  test("asking to read a named file calls read with its path", async () => {
    const plan = planDemoReply(ask("Please read src/main.ts for me"));
    expect(plan).toMatchObject({ kind: "tool", call: { name: "read", arguments: { path: "src/main.ts" } } });
  });

  test("without the tools on offer it answers in text", () => {
    expect(planDemoReply(ask("list the files", false)).kind).toBe("text");
  });

  test("after a tool result it answers about the result", async () => {
    const context: Context = {
      tools,
      messages: [
        { role: "user", content: "list files", timestamp: 1 },
        {
          role: "assistant",
          content: [{ type: "toolCall", id: "call_demo_1", name: "ls", arguments: { path: "." } }],
          api: "demo",
          provider: "demo",
          model: "demo",
          usage: (await streamModel(DEMO_MODEL, ask("x")).result()).usage,
          stopReason: "toolUse",
          timestamp: 2,
        },
        {
          role: "toolResult",
          toolCallId: "call_demo_1",
          toolName: "ls",
          content: [{ type: "text", text: "a.txt\nb.txt\nsrc/" }],
          isError: false,
          timestamp: 3,
        },
      ],
    };
    const message = await streamModel(DEMO_MODEL, context).result();
    expect(message.stopReason).toBe("stop");
    const text = message.content[0]?.type === "text" ? message.content[0].text : "";
    expect(text).toContain("3 entries");
    expect(text).toContain("a.txt");
  });

  test("abort mid-stream ends it as aborted", async () => {
    const controller = new AbortController();
    const stream = streamModel(DEMO_MODEL, ask("tell me something long"), { signal: controller.signal });
    for await (const event of stream) if (event.type === "text_delta") controller.abort();
    expect((await stream.result()).stopReason).toBe("aborted");
  });
});
