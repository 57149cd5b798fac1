import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { StreamCutError } from "../message-builder.ts";
import { anthropicThinking, effectiveThinkingLevel } from "../thinking.ts";
import type {
  AssistantMessageStream,
  Context,
  ImageContent,
  Model,
  StreamOptions,
  TextContent,
} from "../types.ts";
import { anthropicClient } from "./sdk.ts";
import {
  clientSettings,
  finalPayload,
  reportResponse,
  requestSignal,
  runProvider,
  sendableMessages,
  toolResultText,
  VENDOR_BASE_URLS,
} from "./shared.ts";

const CACHE = { type: "ephemeral" } as const;

/** The agent's text when the model refused without saying anything. */
export const REFUSAL_TEXT = "The model declined to answer this request (refusal).";

/** Anthropic accepts only `[a-zA-Z0-9_-]` in tool IDs; other vendors' IDs are mapped into that set. */
export function anthropicToolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "tool";
}

function contentBlocks(
  content: string | (TextContent | ImageContent)[],
): (TextBlockParam | ImageBlockParam)[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return content.map((part) =>
    part.type === "text"
      ? { type: "text", text: part.text }
      : {
          type: "image",
          source: {
            type: "base64",
            media_type: part.mimeType as "image/png" | "image/jpeg" | "image/gif" | "image/webp",
            data: part.data,
          },
        },
  );
}

/** Converts our context into Anthropic messages; consecutive tool results share one user turn. */
export function toAnthropicMessages(context: Context, cacheWrites: boolean): MessageParam[] {
  const out: MessageParam[] = [];
  for (const message of sendableMessages(context)) {
    if (message.role === "user") {
      const blocks = contentBlocks(message.content);
      if (blocks.length > 0) out.push({ role: "user", content: blocks });
    } else if (message.role === "assistant") {
      const blocks: ContentBlockParam[] = [];
      for (const block of message.content) {
        if (block.type === "text") {
          if (block.text) blocks.push({ type: "text", text: block.text });
        } else if (block.type === "thinking") {
          // Thinking from another vendor has no valid signature and would be rejected.
          if (!block.thinkingSignature) continue;
          blocks.push(
            block.redacted
              ? { type: "redacted_thinking", data: block.thinkingSignature }
              : { type: "thinking", thinking: block.thinking, signature: block.thinkingSignature },
          );
        } else {
          blocks.push({
            type: "tool_use",
            id: anthropicToolId(block.id),
            name: block.name,
            input: block.arguments,
          });
        }
      }
      if (blocks.length > 0) out.push({ role: "assistant", content: blocks });
    } else {
      const result: ToolResultBlockParam = {
        type: "tool_result",
        tool_use_id: anthropicToolId(message.toolCallId),
        content: [
          { type: "text", text: toolResultText(message) } as TextBlockParam | ImageBlockParam,
          ...contentBlocks(message.content).filter((b) => b.type === "image"),
        ],
        is_error: message.isError,
      };
      const last = out[out.length - 1];
      const lastContent = last?.content;
      if (
        last?.role === "user" &&
        Array.isArray(lastContent) &&
        lastContent.every((b) => b.type === "tool_result")
      ) {
        (lastContent as ContentBlockParam[]).push(result);
      } else {
        out.push({ role: "user", content: [result] });
      }
    }
  }
  if (cacheWrites) {
    // Marking the newest user turn lets the next request reuse everything before it.
    const lastUser = [...out].reverse().find((m) => m.role === "user");
    const blocks = lastUser?.content;
    const tail = Array.isArray(blocks) ? blocks[blocks.length - 1] : undefined;
    if (tail && (tail.type === "text" || tail.type === "image" || tail.type === "tool_result")) {
      tail.cache_control = CACHE;
    }
  }
  return out;
}

/** Usage as Anthropic names it, or with the OpenAI names some compatible servers use. */
interface StreamUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
}

/** The counts a usage object carries (absent ones are left out, so earlier counts stand). */
function usageCounts(value: unknown): {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
} {
  if (!value || typeof value !== "object") return {};
  const usage = value as StreamUsage;
  const counts: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number } = {};
  const input = usage.input_tokens ?? usage.prompt_tokens;
  const output = usage.output_tokens ?? usage.completion_tokens;
  if (typeof input === "number") counts.input = input;
  if (typeof output === "number") counts.output = output;
  if (typeof usage.cache_read_input_tokens === "number") counts.cacheRead = usage.cache_read_input_tokens;
  if (typeof usage.cache_creation_input_tokens === "number")
    counts.cacheWrite = usage.cache_creation_input_tokens;
  return counts;
}

/** Builds the request body; exported so tests can pin what is sent. */
export function anthropicRequest(
  model: Model,
  context: Context,
  options?: StreamOptions,
): MessageCreateParamsStreaming {
  const cacheWrites = !options?.disablePromptCacheWrites;
  const level = effectiveThinkingLevel(model, options?.thinkingLevel);
  const { thinking, maxTokens } = anthropicThinking(level, options?.maxTokens ?? model.maxTokens);
  const params: MessageCreateParamsStreaming = {
    model: model.id,
    max_tokens: maxTokens,
    messages: toAnthropicMessages(context, cacheWrites),
    stream: true,
  };
  if (context.systemPrompt) {
    params.system = [
      { type: "text", text: context.systemPrompt, ...(cacheWrites ? { cache_control: CACHE } : {}) },
    ];
  }
  if (context.tools && context.tools.length > 0) {
    params.tools = context.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters as { type: "object"; [key: string]: unknown },
    }));
  }
  if (thinking) params.thinking = thinking;
  // Anthropic rejects a temperature together with extended thinking. The SDK's typings no
  // longer list the field, but the API still accepts it, so it rides along untyped.
  else if (options?.temperature !== undefined) {
    (params as unknown as Record<string, unknown>).temperature = options.temperature;
  }
  return params;
}

/** Streams a model over the Anthropic Messages API. */
export function streamAnthropicMessages(
  model: Model,
  context: Context,
  options?: StreamOptions,
): AssistantMessageStream {
  return runProvider(model, options, async (builder, ready) => {
    const { client, sdk } = await anthropicClient(clientSettings(model, options, VENDOR_BASE_URLS.anthropic));
    const blocks = new Map<number, number>();
    /** Tool inputs sent whole in `content_block_start`, used when no deltas follow. */
    const wholeInputs = new Map<number, string>();
    const streamedInputs = new Set<number>();
    const endBlock = (index: number) =>
      builder.end(index, streamedInputs.has(index) ? undefined : wholeInputs.get(index));
    let stopReason: string | null | undefined;
    let stopped = false;
    const onEvent = (event: RawMessageStreamEvent) => {
      switch (event.type) {
        case "message_start":
          // Compatible servers (MiniMax and others) may leave usage out; it then counts as zero.
          builder.setUsage({
            input: 0,
            output: 0,
            cacheRead: 0,
            cacheWrite: 0,
            ...usageCounts(event.message?.usage),
          });
          break;
        case "content_block_start": {
          const block = event.content_block;
          if (block.type === "text") {
            const index = builder.textStart();
            blocks.set(event.index, index);
            if (block.text) builder.textDelta(index, block.text);
          } else if (block.type === "thinking") {
            blocks.set(event.index, builder.thinkingStart());
          } else if (block.type === "redacted_thinking") {
            const index = builder.thinkingStart();
            builder.thinkingSignature(index, block.data, true);
            blocks.set(event.index, index);
          } else if (block.type === "tool_use") {
            const index = builder.toolCallStart(block.id, block.name);
            blocks.set(event.index, index);
            // Proxies that do not stream the input send it whole here instead.
            const input = block.input as Record<string, unknown> | undefined;
            if (input && typeof input === "object" && Object.keys(input).length > 0)
              wholeInputs.set(index, JSON.stringify(input));
          }
          break;
        }
        case "content_block_delta": {
          const index = blocks.get(event.index);
          if (index === undefined) break;
          const delta = event.delta;
          if (delta.type === "text_delta") builder.textDelta(index, delta.text);
          else if (delta.type === "thinking_delta") builder.thinkingDelta(index, delta.thinking);
          else if (delta.type === "signature_delta") builder.thinkingSignature(index, delta.signature);
          else if (delta.type === "input_json_delta" && delta.partial_json) {
            streamedInputs.add(index);
            builder.toolCallDelta(index, delta.partial_json);
          }
          break;
        }
        case "content_block_stop": {
          const index = blocks.get(event.index);
          if (index !== undefined) endBlock(index);
          break;
        }
        case "message_delta":
          stopReason = event.delta?.stop_reason;
          // A compatible server may send no usage here; the counts from message_start stand.
          builder.setUsage(usageCounts(event.usage));
          break;
        case "message_stop":
          stopped = true;
          // Some compatible servers put the final counts here instead.
          builder.setUsage(usageCounts((event as { usage?: unknown }).usage));
          break;
      }
    };
    // The SDK sends the request and raises its typed errors for a failed status; the body is
    // then read by our lean SSE reader (see sse.ts). The SDK gets a per-request signal so its
    // listener on the caller's long-lived signal does not outlive the request.
    const request = requestSignal(options?.signal);
    try {
      const response = await client.messages
        .create(await finalPayload(anthropicRequest(model, context, options), options), {
          signal: request.signal,
        })
        .asResponse();
      await reportResponse(response, options);
      await sdk.readAnthropicEvents(response, options?.signal, onEvent, ready);
    } finally {
      request.release();
    }
    if (!stopped) throw new StreamCutError();
    for (const index of wholeInputs.keys()) endBlock(index);
    if (stopReason === "refusal" && !builder.message.content.some((c) => c.type === "text" && c.text)) {
      // A refusal is the model's answer, as on the OpenAI paths; Anthropic sends no text for it.
      const index = builder.textStart();
      builder.textDelta(index, REFUSAL_TEXT);
    }
    builder.finish(stopReason === "max_tokens" ? "length" : stopReason === "tool_use" ? "toolUse" : "stop");
  });
}
