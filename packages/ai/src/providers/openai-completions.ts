import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { type ChatCompat, chatCompat } from "../compat.ts";
import { type AssistantMessageBuilder, StreamCutError } from "../message-builder.ts";
import { effectiveThinkingLevel, openaiReasoningEffort } from "../thinking.ts";
import type { AssistantMessageStream, Context, ImageContent, Model, StreamOptions } from "../types.ts";
import { ChatToolCalls, type ToolCallFragment } from "./chat-tool-calls.ts";
import { openAIClient } from "./sdk.ts";
import {
  clientSettings,
  finalPayload,
  reportResponse,
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

/**
 * Converts our context into Chat Completions messages. `compat` decides which reasoning
 * round-trips ride along: `reasoning_content` on tool-calling assistant messages (DeepSeek's
 * thinking mode requires it) and each call's Gemini thought signature.
 */
export function toChatMessages(
  context: Context,
  compat: Pick<ChatCompat, "sendReasoningContent" | "sendThoughtSignatures"> = {
    sendReasoningContent: false,
    sendThoughtSignatures: false,
  },
): ChatCompletionMessageParam[] {
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
      const assistant: ChatCompletionMessageParam & { reasoning_content?: string } = {
        role: "assistant",
        content: text || null,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: "function" as const,
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                ...(compat.sendThoughtSignatures && call.thoughtSignature
                  ? { extra_content: { google: { thought_signature: call.thoughtSignature } } }
                  : {}),
              })),
            }
          : {}),
      };
      // DeepSeek ignores it on turns without tool calls and rejects its absence on the others.
      if (compat.sendReasoningContent && calls.length > 0) {
        assistant.reasoning_content = message.content
          .filter((c) => c.type === "thinking")
          .map((c) => c.thinking)
          .join("");
      }
      out.push(assistant);
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
  const compat = chatCompat(model);
  const params: ChatCompletionCreateParamsStreaming = {
    model: model.id,
    messages: toChatMessages(context, compat),
    stream: true,
  };
  // Some older compatible servers reject stream_options; compat opts out.
  if (compat.supportsUsageInStreaming) params.stream_options = { include_usage: true };
  const maxTokens = options?.maxTokens ?? model.maxTokens;
  // OpenAI itself wants max_completion_tokens; most compatible servers only know max_tokens.
  if (compat.maxTokensField === "max_completion_tokens") {
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
  if (effort && compat.supportsReasoningEffort) params.reasoning_effort = effort;
  return params;
}

/** Token counts as compatible servers report them (DeepSeek adds its cache-hit count). */
interface ChunkUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  prompt_cache_hit_tokens?: number;
}

/** One content part of a delta whose `content` is an array (Mistral's Magistral models). */
interface ContentPart {
  type?: unknown;
  text?: unknown;
  thinking?: unknown;
}

/** A chunk as real servers send it; every field beyond the OpenAI types is optional. */
interface Chunk {
  usage?: ChunkUsage | null;
  /** Groq reports usage here. */
  x_groq?: { usage?: ChunkUsage | null } | null;
  choices?: {
    delta?: {
      content?: string | ContentPart[] | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: ToolCallFragment[] | null;
    } | null;
    finish_reason?: string | null;
    /** Moonshot and some gateways report usage on the choice. */
    usage?: ChunkUsage | null;
  }[];
}

function setUsage(builder: AssistantMessageBuilder, usage: ChunkUsage): void {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0;
  builder.setUsage({
    input: Math.max(0, (usage.prompt_tokens ?? 0) - cached),
    output: usage.completion_tokens ?? 0,
    cacheRead: cached,
  });
}

/** The text of a thinking part: a string, or a list of text parts. */
function thinkingText(thinking: unknown): string {
  if (typeof thinking === "string") return thinking;
  if (!Array.isArray(thinking)) return "";
  let text = "";
  for (const part of thinking as ContentPart[]) if (typeof part?.text === "string") text += part.text;
  return text;
}

/** Streams a model over the OpenAI Chat Completions API (OpenAI or any compatible server). */
export function streamOpenAICompletions(
  model: Model,
  context: Context,
  options?: StreamOptions,
): AssistantMessageStream {
  return runProvider(model, options, async (builder, ready) => {
    const { client, sdk } = await openAIClient(
      "openai-completions",
      clientSettings(model, options, VENDOR_BASE_URLS.openai),
    );
    // The SDK sends the request and raises its typed errors for a failed status; the body is
    // then read by our lean SSE reader, which is several times faster than the SDK's stream.
    const response = await client.chat.completions
      .create(await finalPayload(chatCompletionsRequest(model, context, options), options), {
        signal: options?.signal,
      })
      .asResponse();
    await reportResponse(response, options);
    let current: { kind: "text" | "thinking"; index: number } | undefined;
    let finish: string | undefined;
    const switchTo = (kind: "text" | "thinking") => {
      if (current?.kind === kind) return current.index;
      if (current) builder.end(current.index);
      const index = kind === "text" ? builder.textStart() : builder.thinkingStart();
      current = { kind, index };
      return index;
    };
    const tools = new ChatToolCalls(builder, () => {
      if (current) builder.end(current.index);
      current = undefined;
    });
    const parts = (content: ContentPart[]) => {
      for (const part of content) {
        if (part?.type === "text" && typeof part.text === "string" && part.text)
          builder.textDelta(switchTo("text"), part.text);
        else if (part?.type === "thinking") {
          const text = thinkingText(part.thinking);
          if (text) builder.thinkingDelta(switchTo("thinking"), text);
        }
        // Other part types (references, images) carry nothing the agent shows as text.
      }
    };

    const sawDone = await sdk.readOpenAIEvents<Chunk>(
      response,
      options?.signal,
      (chunk) => {
        if (chunk.usage) setUsage(builder, chunk.usage);
        else if (chunk.x_groq?.usage) setUsage(builder, chunk.x_groq.usage);
        const choice = chunk.choices?.[0];
        if (!choice) return;
        if (choice.usage) setUsage(builder, choice.usage);
        const delta = choice.delta;
        if (delta) {
          const reasoning = delta.reasoning_content ?? delta.reasoning;
          if (reasoning) builder.thinkingDelta(switchTo("thinking"), reasoning);
          const content = delta.content;
          if (typeof content === "string") {
            if (content) builder.textDelta(switchTo("text"), content);
          } else if (Array.isArray(content)) parts(content);
          // A refusal is the model's answer: it becomes the agent's text.
          if (typeof delta.refusal === "string" && delta.refusal)
            builder.textDelta(switchTo("text"), delta.refusal);
          if (delta.tool_calls) tools.add(delta.tool_calls);
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      },
      ready,
    );
    // Some gateways end a complete reply with [DONE] and never send a finish reason.
    if (!finish && !sawDone) throw new StreamCutError();
    if (finish === "content_filter")
      throw new Error("provider error: the response was blocked by a content filter");
    tools.close();
    if (finish === "length") builder.finish("length");
    // Some compatible servers say "stop" even when the reply is tool calls.
    else if (finish === "tool_calls" || finish === "function_call" || tools.size > 0)
      builder.finish("toolUse");
    else builder.finish("stop");
  });
}
