import { describe, expect, test } from "bun:test";
import {
  type Context,
  DEMO_MODEL,
  DEMO_WRITE_CONTENT,
  type Message,
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

describe("offline demo model writing a file", () => {
  const writeTools: ToolDefinition[] = ["ls", "read", "write"].map((name) => ({
    name,
    description: name,
    parameters: {},
  }));
  const askWrite = (text: string): Context => ({
    messages: [{ role: "user", content: text, timestamp: 1 }],
    tools: writeTools,
  });
  /** The request, the demo's own write call, and the tool result as the agent would add them. */
  async function afterWrite(result: { text: string; isError: boolean }): Promise<Context> {
    const request = askWrite("Create a file named demo-note.txt");
    const call = await streamModel(DEMO_MODEL, request).result();
    const toolCall = call.content.find((c) => c.type === "toolCall");
    if (toolCall?.type !== "toolCall") throw new Error("expected a tool call");
    const toolResult: Message = {
      role: "toolResult",
      toolCallId: toolCall.id,
      toolName: "write",
      content: [{ type: "text", text: result.text }],
      isError: result.isError,
      timestamp: 3,
    };
    return { ...request, messages: [...request.messages, call, toolResult] };
  }
  const replyText = (message: { content: { type: string; text?: string }[] }) =>
    message.content.map((c) => (c.type === "text" ? (c.text ?? "") : "")).join("");

  test("asking to create a named file streams a sentence, then calls write with that path", async () => {
    const stream = streamModel(DEMO_MODEL, askWrite("Create a file named demo-note.txt"));
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const message = await stream.result();
    expect(types.filter((t) => t === "text_delta").length).toBeGreaterThan(3);
    expect(types.indexOf("toolcall_start")).toBeGreaterThan(types.lastIndexOf("text_delta"));
    expect(message.stopReason).toBe("toolUse");
    expect(replyText(message)).toContain("offline demo");
    expect(replyText(message)).toContain("demo-note.txt");
    expect(message.content.at(-1)).toEqual({
      type: "toolCall",
      id: "call_demo_1",
      name: "write",
      arguments: { path: "demo-note.txt", content: DEMO_WRITE_CONTENT },
    });
    expect(DEMO_WRITE_CONTENT).toContain("KnightCode offline demo");
  });

  test("the write call is deterministic", async () => {
    const a = await streamModel(DEMO_MODEL, askWrite("Create a file named demo-note.txt")).result();
    const b = await streamModel(DEMO_MODEL, askWrite("Create a file named demo-note.txt")).result();
    expect(a.content).toEqual(b.content);
  });

  test("the file is the one named after create/write; a file called write.ts is not a request", () => {
    const cases: [string, string, string][] = [
      ["please write hello to notes/today.md", "write", "notes/today.md"],
      ["Read notes.txt and write a summary to summary.md", "write", "summary.md"],
      ["CREATE `out.json` now", "write", "out.json"],
      ["What does write.ts do? read write.ts", "read", "write.ts"],
      ["list the files here", "ls", "."],
    ];
    for (const [text, name, path] of cases) {
      expect({ text, plan: planDemoReply(askWrite(text)) }).toMatchObject({
        text,
        plan: { kind: "tool", call: { name, arguments: { path } } },
      });
    }
  });

  test("a create request that names no file keeps the existing behaviour", () => {
    expect(planDemoReply(askWrite("create something nice")).kind).toBe("text");
    expect(planDemoReply(askWrite("create a list of the files"))).toMatchObject({ call: { name: "ls" } });
  });

  test("without the write tool on offer a write request is answered in text", () => {
    const plan = planDemoReply(ask("Create a file named demo-note.txt"));
    expect(plan.kind).toBe("text");
    expect(plan.kind === "text" ? plan.text : "").toContain("write tool is not available");
  });

  test("after the write succeeds it confirms the file was written", async () => {
    const context = await afterWrite({ text: "Created demo-note.txt (55 bytes).", isError: false });
    const message = await streamModel(DEMO_MODEL, context).result();
    expect(message.stopReason).toBe("stop");
    expect(message.content.some((c) => c.type === "toolCall")).toBe(false);
    expect(replyText(message)).toBe(
      "This is the offline demo model. I wrote demo-note.txt. Result: Created demo-note.txt (55 bytes).",
    );
  });

  test("after a declined write it says the file was not written, and why", async () => {
    const context = await afterWrite({ text: "The user declined this tool call.", isError: true });
    const message = await streamModel(DEMO_MODEL, context).result();
    expect(message.stopReason).toBe("stop");
    expect(message.content.some((c) => c.type === "toolCall")).toBe(false);
    const text = replyText(message);
    expect(text).toContain("demo-note.txt was not written");
    expect(text).toContain("The user declined this tool call.");
    expect(text).not.toContain("I wrote");
  });
});
