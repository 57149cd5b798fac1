/**
 * A server's `sampling/createMessage` request in KnightCode's terms: the text of its
 * messages (other content is named, not sent), its system prompt and token cap, and the
 * tool call it arrived during. The thread answers it (approval, then its model); this
 * file only translates between the SDK's shapes and ours.
 */
import type { CreateMessageRequest, CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";

/** One message of a sampling request, as text. */
export interface SamplingMessage {
  role: "user" | "assistant";
  text: string;
}

/** What a server asks the thread's model. */
export interface SamplingRequest {
  server: string;
  /** The agent tool call during which the server asked. */
  toolCallId: string;
  systemPrompt?: string;
  messages: SamplingMessage[];
  maxTokens: number;
  temperature?: number;
}

/** The model's answer. */
export interface SamplingReply {
  text: string;
  /** The model that answered, as `<provider>/<id>`. */
  model: string;
  stopReason: "endTurn" | "maxTokens";
}

/** Answers a sampling request for a thread; rejects when the user declines or the model fails. */
export type McpSampler = (request: SamplingRequest, signal: AbortSignal) => Promise<SamplingReply>;

/** Thrown by a sampler when the user declined; the server gets MCP's user-rejection error. */
export class SamplingDeclinedError extends Error {
  override readonly name = "SamplingDeclinedError";
}

type ContentBlock = { type: string; text?: unknown; mimeType?: unknown };

function textOf(content: ContentBlock | ContentBlock[]): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((block) =>
      block.type === "text" && typeof block.text === "string"
        ? block.text
        : `[${block.type}${typeof block.mimeType === "string" ? ` ${block.mimeType}` : ""} content not sent]`,
    )
    .join("\n");
}

/** Our request from the SDK's params. */
export function samplingRequestOf(
  server: string,
  toolCallId: string,
  params: CreateMessageRequest["params"],
): SamplingRequest {
  return {
    server,
    toolCallId,
    ...(params.systemPrompt !== undefined ? { systemPrompt: params.systemPrompt } : {}),
    messages: params.messages.map((message) => ({
      role: message.role,
      text: textOf(message.content as ContentBlock | ContentBlock[]),
    })),
    maxTokens: params.maxTokens,
    ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
  };
}

/** The SDK's result from our reply. */
export function createMessageResultOf(reply: SamplingReply): CreateMessageResult {
  return {
    role: "assistant",
    content: { type: "text", text: reply.text },
    model: reply.model,
    stopReason: reply.stopReason,
  };
}
