import type { AssistantMessageStream, Context, Message, Model, StreamOptions, ToolCall } from "../types.ts";
import { runProvider, textOf } from "./shared.ts";

/** The built-in offline model: deterministic, no network, no key. */
export const DEMO_MODEL: Model = {
  id: "demo",
  name: "Offline demo",
  api: "demo",
  provider: "demo",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 128_000,
  maxTokens: 4_096,
  thinkingLevels: ["off"],
};

const INTRO = "This is the offline demo model (no API key is configured, so nothing leaves this machine).";
const ASKS_ABOUT_FILES = /\b(files?|director(y|ies)|folders?|dir|ls|list|read|contents?|readme)\b/i;
const PATH_TOKEN = /(?:^|\s|`|"|')((?:\.{0,2}\/)?[\w.-]+(?:\/[\w.-]+)*\.[A-Za-z0-9]+)(?=$|\s|`|"|'|[?!,;:])/;
/** "create" or "write" as a word of its own (so `write.ts` is a file name, not a request). */
const ASKS_TO_WRITE = /(?:^|\s)(?:create|write)(?=\s)/i;

/** What the demo model writes when asked to create a file. */
export const DEMO_WRITE_CONTENT = "This file was written by the KnightCode offline demo.\n";

/** What the demo model will do for a context: a tool call or a text reply. */
export type DemoPlan = { kind: "text"; text: string } | { kind: "tool"; call: ToolCall; preface: string };

/** Pure planning for the demo reply, so tests can pin its decisions. */
export function planDemoReply(context: Context): DemoPlan {
  const last = context.messages[context.messages.length - 1];
  if (last?.role === "toolResult") return { kind: "text", text: describeToolResult(last, context.messages) };
  const userText = lastUserText(context.messages);
  const tools = new Set((context.tools ?? []).map((t) => t.name));
  const id = `call_demo_${context.messages.length}`;
  const writeTarget = fileToWrite(userText);
  if (writeTarget !== undefined) {
    if (tools.has("write")) {
      return {
        kind: "tool",
        preface: `${INTRO} Let me write ${writeTarget}.`,
        call: {
          type: "toolCall",
          id,
          name: "write",
          arguments: { path: writeTarget, content: DEMO_WRITE_CONTENT },
        },
      };
    }
    return {
      kind: "text",
      text: `${INTRO} You asked me to write ${writeTarget}, but the write tool is not available here, so I did not.`,
    };
  }
  if (ASKS_ABOUT_FILES.test(userText)) {
    const path = PATH_TOKEN.exec(userText)?.[1];
    if (path && tools.has("read")) {
      return {
        kind: "tool",
        preface: `${INTRO} Let me read ${path}.`,
        call: { type: "toolCall", id, name: "read", arguments: { path } },
      };
    }
    if (tools.has("ls")) {
      return {
        kind: "tool",
        preface: `${INTRO} Let me list the current directory.`,
        call: { type: "toolCall", id, name: "ls", arguments: { path: "." } },
      };
    }
  }
  const quoted = userText.length > 160 ? `${userText.slice(0, 160)}…` : userText;
  return {
    kind: "text",
    text:
      `${INTRO} You said: "${quoted}". I can list the directory or read a file if you ask about files, ` +
      'or write one if you ask me to (for example "Create a file named demo-note.txt"). ' +
      "To talk to a real model, set ANTHROPIC_API_KEY or OPENAI_API_KEY, or add a provider in models.json.",
  };
}

/** The file a request to create or write names after its verb, if any. */
function fileToWrite(userText: string): string | undefined {
  const verb = ASKS_TO_WRITE.exec(userText);
  if (!verb) return undefined;
  return PATH_TOKEN.exec(userText.slice(verb.index + verb[0].length))?.[1];
}

function lastUserText(messages: Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "user") return textOf(message.content).trim();
  }
  return "";
}

function describeToolResult(result: Extract<Message, { role: "toolResult" }>, messages: Message[]): string {
  const text = textOf(result.content);
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  if (result.toolName === "write") {
    const path = calledPath(messages, result.toolCallId) ?? "the file";
    const detail = lines[0] ?? "no details";
    return result.isError
      ? `This is the offline demo model. ${path} was not written; the write call did not go through: ${detail}`
      : `This is the offline demo model. I wrote ${path}. Result: ${detail}`;
  }
  if (result.isError) {
    return `This is the offline demo model. The ${result.toolName} call failed: ${lines[0] ?? "no details"}.`;
  }
  const preview = lines.slice(0, 5).join(", ");
  const noun = result.toolName === "ls" ? "entries" : "lines";
  return (
    `This is the offline demo model. ${result.toolName} returned ${lines.length} ${noun}` +
    (preview ? `, starting with: ${preview}.` : ".")
  );
}

/** The `path` argument of the tool call a result answers. */
function calledPath(messages: Message[], toolCallId: string): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "assistant") continue;
    const call = message.content.find((c) => c.type === "toolCall" && c.id === toolCallId);
    if (call?.type === "toolCall" && typeof call.arguments.path === "string") return call.arguments.path;
  }
  return undefined;
}

/** Splits text into word-sized deltas so the reply visibly streams. */
function wordDeltas(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [text];
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Streams the demo reply; yields to the event loop between deltas so aborts land mid-stream. */
export function streamDemo(model: Model, context: Context, options?: StreamOptions): AssistantMessageStream {
  return runProvider(model, options, async (builder) => {
    const plan = planDemoReply(context);
    const checkAbort = () => {
      if (options?.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
    };
    const text = plan.kind === "text" ? plan.text : plan.preface;
    const index = builder.textStart();
    for (const delta of wordDeltas(text)) {
      await tick();
      checkAbort();
      builder.textDelta(index, delta);
    }
    builder.end(index);
    let outputChars = text.length;
    if (plan.kind === "tool") {
      const args = JSON.stringify(plan.call.arguments);
      outputChars += args.length;
      const callIndex = builder.toolCallStart(plan.call.id, plan.call.name);
      await tick();
      checkAbort();
      builder.toolCallDelta(callIndex, args);
      builder.end(callIndex);
    }
    const inputChars = JSON.stringify(context.messages).length + (context.systemPrompt?.length ?? 0);
    builder.setUsage({ input: Math.ceil(inputChars / 4), output: Math.ceil(outputChars / 4) });
    builder.finish(plan.kind === "tool" ? "toolUse" : "stop");
  });
}
