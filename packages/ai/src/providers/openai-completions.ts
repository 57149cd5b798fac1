import type {
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { StreamCutError } from "../message-builder.ts";
import { effectiveThinkingLevel, openaiReasoningEffort } from "../thinking.ts";
import type { AssistantMessageStream, Context, ImageContent, Model, StreamOptions } from "../types.ts";
import { openAIClient } from "./sdk.ts";
import {
  clientSettings,
  runProvider,
  sendableMessages,
  toolImagesLabel,
  toolResultText,
  VENDOR_BASE_URLS,
  withToolImagesAfterResults,
} from "./shared.ts";

function imageUrlPart(image: ImageContent): ChatCompletionContentPart {
  return { type: "image_url", image_url: { url: `data:${image.mimeType};base64,${image.data}` } };
}

/** Converts our context into Chat Completions messages. */
export function toChatMessages(context: Context): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (context.systemPrompt) out.push({ role: "system", content: context.systemPrompt });
  for (const message of withToolImagesAfterResults(sendableMessages(context))) {
    if (message.role === "user") {
      if (typeof message.content === "string") {
        out.push({ role: "user", content: message.content });
        continue;
      }
      const parts: ChatCompletionContentPart[] = message.content.map((part) =>
        part.type === "text" ? { type: "text", text: part.text } : imageUrlPart(part),
      );
      out.push({ role: "user", content: parts });
    } else if (message.role === "assistant") {
      const text = message.content
        .filter((c) => c.type === "text")
        .map((c) => c.text)
        .join("");
      const calls = message.content.filter((c) => c.type === "toolCall");
      if (!text && calls.length === 0) continue;
      out.push({
        role: "assistant",
        content: text || null,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: "function" as const,
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
              })),
            }
          : {}),
      });
    } else if (message.role === "toolResult") {
      out.push({ role: "tool", tool_call_id: message.toolCallId, content: toolResultText(message) });
    } else {
      // Tool messages carry text only, so the images of a batch of tool results ride in one
      // user message after its last tool message (see withToolImagesAfterResults).
      out.push({
        role: "user",
        content: message.results.flatMap((result): ChatCompletionContentPart[] => [
          { type: "text", text: toolImagesLabel(result) },
          ...result.images.map(imageUrlPart),
        ]),
      });
    }
  }
  return out;
}

/** Builds the request body; exported so tests can pin what is sent. */
export function chatCompletionsRequest(
  model: Model,
  context: Context,
  options?: StreamOptions,
): ChatCompletionCreateParamsStreaming {
  const params: ChatCompletionCreateParamsStreaming = {
    model: model.id,
    messages: toChatMessages(context),
    stream: true,
  };
  // Some older compatible servers reject stream_options; compat opts out.
  if (model.compat?.supportsUsageInStreaming !== false) params.stream_options = { include_usage: true };
  const maxTokens = options?.maxTokens ?? model.maxTokens;
  // OpenAI itself wants max_completion_tokens; most compatible servers only know max_tokens.
  if (model.compat?.maxTokensField === "max_completion_tokens" || model.provider === "openai") {
    params.max_completion_tokens = maxTokens;
  } else {
    params.max_tokens = maxTokens;
  }
  if (options?.temperature !== undefined) params.temperature = options.temperature;
  if (context.tools && context.tools.length > 0) {
    params.tools = context.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  const effort = openaiReasoningEffort(effectiveThinkingLevel(model, options?.thinkingLevel));
  if (effort && model.compat?.supportsReasoningEffort !== false) params.reasoning_effort = effort;
  return params;
}

type ChunkDelta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string; reasoning?: string };
/** Shared empty list, so a chunk without tool calls allocates nothing. */
const NO_TOOL_CALLS: readonly ChatCompletionChunk.Choice.Delta.ToolCall[] = [];

/** Streams a model over the OpenAI Chat Completions API (OpenAI or any compatible server). */
export function streamOpenAICompletions(
  model: Model,
  context: Context,
  options?: StreamOptions,
): AssistantMessageStream {
  return runProvider(model, options, async (builder) => {
    const { client, sdk } = await openAIClient(
      "openai-completions",
      clientSettings(model, options, VENDOR_BASE_URLS.openai),
    );
    // The SDK sends the request and raises its typed errors for a failed status; the body is
    // then read by our lean SSE reader, which is several times faster than the SDK's stream.
    const response = await client.chat.completions
      .create(chatCompletionsRequest(model, context, options), { signal: options?.signal })
      .asResponse();
    let current: { kind: "text" | "thinking"; index: number } | undefined;
    const tools = new Map<number, number>();
    let finish: string | undefined;
    const switchTo = (kind: "text" | "thinking") => {
      if (current?.kind === kind) return current.index;
      if (current) builder.end(current.index);
      const index = kind === "text" ? builder.textStart() : builder.thinkingStart();
      current = { kind, index };
      return index;
    };

    await sdk.readOpenAIEvents<ChatCompletionChunk>(response, options?.signal, (chunk) => {
      if (chunk.usage) {
        const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
        builder.setUsage({
          input: chunk.usage.prompt_tokens - cached,
          output: chunk.usage.completion_tokens,
          cacheRead: cached,
        });
      }
      const choice = chunk.choices?.[0];
      if (!choice) return;
      const delta = choice.delta as ChunkDelta | undefined;
      const reasoning = delta?.reasoning_content ?? delta?.reasoning;
      if (reasoning) builder.thinkingDelta(switchTo("thinking"), reasoning);
      if (delta?.content) builder.textDelta(switchTo("text"), delta.content);
      for (const call of delta?.tool_calls ?? NO_TOOL_CALLS) {
        let index = tools.get(call.index);
        if (index === undefined) {
          if (current) builder.end(current.index);
          current = undefined;
          index = builder.toolCallStart(call.id ?? "", call.function?.name ?? "");
          tools.set(call.index, index);
        } else {
          builder.toolCallPatch(index, { id: call.id, name: call.function?.name });
        }
        if (call.function?.arguments) builder.toolCallDelta(index, call.function.arguments);
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    });
    if (!finish) throw new StreamCutError();
    if (finish === "content_filter")
      throw new Error("provider error: the response was blocked by a content filter");
    if (finish === "length") builder.finish("length");
    // Some compatible servers say "stop" even when the reply is tool calls.
    else if (finish === "tool_calls" || finish === "function_call" || tools.size > 0)
      builder.finish("toolUse");
    else builder.finish("stop");
  });
}
