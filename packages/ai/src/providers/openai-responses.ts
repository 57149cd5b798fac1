import type {
  ResponseCreateParamsStreaming,
  ResponseInputContent,
  ResponseInputItem,
  ResponseReasoningItem,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import { StreamCutError } from "../message-builder.ts";
import { effectiveThinkingLevel, openaiReasoningEffort } from "../thinking.ts";
import type {
  AssistantMessageStream,
  Context,
  ImageContent,
  Model,
  StreamOptions,
  TextContent,
} from "../types.ts";
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

function inputContent(content: string | (TextContent | ImageContent)[]): ResponseInputContent[] {
  if (typeof content === "string") return [{ type: "input_text", text: content }];
  return content.map((part) =>
    part.type === "text"
      ? { type: "input_text", text: part.text }
      : { type: "input_image", image_url: `data:${part.mimeType};base64,${part.data}`, detail: "auto" },
  );
}

/** Parses a stored reasoning item; only items this API produced can be replayed. */
function storedReasoning(signature: string | undefined): ResponseReasoningItem | undefined {
  if (!signature?.startsWith("{")) return undefined;
  try {
    const item = JSON.parse(signature) as ResponseReasoningItem;
    return item.type === "reasoning" ? item : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Converts our context into Responses input items. A replayed reasoning item must be
 * followed by the items it produced, paired by their vendor IDs; those IDs are sent only
 * when the reasoning went along, since an ID without its reasoning is rejected too.
 */
export function toResponsesInput(context: Context): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  for (const message of withToolImagesAfterResults(sendableMessages(context))) {
    if (message.role === "user") {
      out.push({ role: "user", content: inputContent(message.content) });
    } else if (message.role === "assistant") {
      let withReasoning = false;
      for (const block of message.content) {
        if (block.type === "thinking") {
          const item =
            message.api === "openai-responses" ? storedReasoning(block.thinkingSignature) : undefined;
          // Without encrypted content a stateless request cannot resolve the item's ID.
          if (item?.encrypted_content) {
            out.push(item);
            withReasoning = true;
          }
        } else if (block.type === "text") {
          if (!block.text) continue;
          if (withReasoning && block.textSignature) {
            out.push({
              type: "message",
              id: block.textSignature,
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: block.text, annotations: [] }],
            });
          } else {
            out.push({ role: "assistant", content: block.text });
          }
        } else {
          out.push({
            type: "function_call",
            call_id: block.id,
            name: block.name,
            arguments: JSON.stringify(block.arguments),
            ...(withReasoning && block.providerItemId ? { id: block.providerItemId } : {}),
          });
        }
      }
    } else if (message.role === "toolResult") {
      out.push({
        type: "function_call_output",
        call_id: message.toolCallId,
        output: toolResultText(message),
      });
    } else {
      // Images of a batch of tool results follow all of its outputs, in one user message.
      out.push({
        role: "user",
        content: message.results.flatMap((result) =>
          inputContent([{ type: "text", text: toolImagesLabel(result) }, ...result.images]),
        ),
      });
    }
  }
  return out;
}

/** Builds the request body; exported so tests can pin what is sent. */
export function responsesRequest(
  model: Model,
  context: Context,
  options?: StreamOptions,
): ResponseCreateParamsStreaming {
  const params: ResponseCreateParamsStreaming = {
    model: model.id,
    input: toResponsesInput(context),
    stream: true,
    // Stateless: the transcript is ours, so nothing is kept server-side.
    store: false,
    max_output_tokens: options?.maxTokens ?? model.maxTokens,
  };
  if (context.systemPrompt) params.instructions = context.systemPrompt;
  if (options?.temperature !== undefined) params.temperature = options.temperature;
  if (context.tools && context.tools.length > 0) {
    params.tools = context.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: false,
    }));
  }
  const effort = openaiReasoningEffort(effectiveThinkingLevel(model, options?.thinkingLevel));
  if (effort) params.reasoning = { effort, summary: "auto" };
  // Reasoning models reason even at the default effort; stateless replay needs the content.
  if (model.reasoning) params.include = ["reasoning.encrypted_content"];
  if (options?.sessionId && !options.disablePromptCacheWrites) params.prompt_cache_key = options.sessionId;
  return params;
}

/** Streams a model over the OpenAI Responses API. */
export function streamOpenAIResponses(
  model: Model,
  context: Context,
  options?: StreamOptions,
): AssistantMessageStream {
  return runProvider(model, options, async (builder, ready) => {
    const { client, sdk } = await openAIClient(
      "openai-responses",
      clientSettings(model, options, VENDOR_BASE_URLS.openai),
    );
    // The SDK sends the request and raises its typed errors for a failed status; the body is
    // then read by our lean SSE reader, which is several times faster than the SDK's stream.
    const response = await client.responses
      .create(await finalPayload(responsesRequest(model, context, options), options), {
        signal: options?.signal,
      })
      .asResponse();
    await reportResponse(response, options);
    const items = new Map<number, number>();
    /** Content indices that received deltas; the others take their text from `output_item.done`. */
    const streamed = new Set<number>();
    let sawToolCall = false;
    await sdk.readOpenAIEvents<ResponseStreamEvent>(
      response,
      options?.signal,
      (event) => {
        switch (event.type) {
          case "response.output_item.added": {
            const item = event.item;
            if (item.type === "reasoning") items.set(event.output_index, builder.thinkingStart());
            else if (item.type === "message") {
              const index = builder.textStart();
              if (item.id) builder.textSignature(index, item.id);
              items.set(event.output_index, index);
            } else if (item.type === "function_call") {
              sawToolCall = true;
              const index = builder.toolCallStart(item.call_id, item.name);
              if (item.id) builder.toolCallPatch(index, { providerItemId: item.id });
              items.set(event.output_index, index);
            }
            break;
          }
          case "response.reasoning_summary_part.added": {
            const index = items.get(event.output_index);
            // Separate summary parts the way the vendor's own UIs do.
            if (index !== undefined && event.summary_index > 0) builder.thinkingDelta(index, "\n\n");
            break;
          }
          case "response.reasoning_summary_text.delta":
          case "response.reasoning_text.delta": {
            const index = items.get(event.output_index);
            if (index === undefined) break;
            streamed.add(index);
            builder.thinkingDelta(index, event.delta);
            break;
          }
          case "response.output_text.delta":
          case "response.refusal.delta": {
            const index = items.get(event.output_index);
            if (index === undefined) break;
            streamed.add(index);
            builder.textDelta(index, event.delta);
            break;
          }
          case "response.function_call_arguments.delta": {
            const index = items.get(event.output_index);
            if (index !== undefined) builder.toolCallDelta(index, event.delta);
            break;
          }
          case "response.output_item.done": {
            const index = items.get(event.output_index);
            if (index === undefined) break;
            const item = event.item;
            // Some gateways send the finished item only, with no deltas before it.
            if (!streamed.has(index)) {
              if (item.type === "message") {
                const text = item.content
                  .map((part) => (part.type === "output_text" ? part.text : part.refusal))
                  .join("");
                if (text) builder.textDelta(index, text);
              } else if (item.type === "reasoning") {
                const text = (item.summary ?? []).map((part) => part.text).join("\n\n");
                if (text) builder.thinkingDelta(index, text);
              }
            }
            if (item.type === "reasoning") builder.thinkingSignature(index, JSON.stringify(item));
            builder.end(index, item.type === "function_call" ? item.arguments : undefined);
            break;
          }
          case "response.completed":
          case "response.incomplete": {
            const usage = event.response.usage;
            if (usage) {
              const cached = usage.input_tokens_details?.cached_tokens ?? 0;
              builder.setUsage({
                input: usage.input_tokens - cached,
                output: usage.output_tokens,
                cacheRead: cached,
              });
            }
            if (event.type === "response.incomplete") {
              const reason = event.response.incomplete_details?.reason;
              if (reason === "max_output_tokens") builder.finish("length");
              else throw new Error(`provider error: response incomplete (${reason ?? "unknown reason"})`);
            } else {
              builder.finish(sawToolCall ? "toolUse" : "stop");
            }
            break;
          }
          case "response.failed": {
            const error = event.response.error;
            throw new Error(error ? `${error.code}: ${error.message}` : "provider error: response failed");
          }
          case "error":
            throw new Error(event.code ? `${event.code}: ${event.message}` : event.message);
        }
      },
      ready,
    );
    if (!builder.isFinished) throw new StreamCutError();
  });
}
