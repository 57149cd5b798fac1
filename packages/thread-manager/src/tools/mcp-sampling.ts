/**
 * The answer to an MCP server's sampling request (`sampling/createMessage`) made during
 * one of the thread's tool calls: the user is asked first, with the server's system
 * prompt and messages as the approval's `sampling` preview (sampling is the "MCP tools"
 * approval row: asked in `ask` and `autoEdit`, allowed in `fullAccess`), then the
 * thread's model answers with no tools, the server's system prompt and its token cap.
 */
import {
  type AssistantMessage,
  emptyUsage,
  type Message,
  type Model,
  type StreamFunction,
} from "@knightcode/ai";
import type { ItemToolCallRequestApprovalResult } from "@knightcode/app-server-protocol";
import { type McpSampler, SamplingDeclinedError, type SamplingReply } from "@knightcode/mcp/sampling";
import type { ThreadPort } from "../thread-port.ts";

/** How the thread's model is reached for sampling. */
export interface SamplingModelAccess {
  streamFn: StreamFunction;
  apiKey(model: Model): Promise<string | undefined>;
}

/** The sampler of one loaded thread. */
export function createMcpSampler(thread: ThreadPort, access: SamplingModelAccess): McpSampler {
  return async (request, signal) => {
    const turn = thread.running;
    const model = thread.model;
    if (turn === undefined || model === undefined) {
      throw new Error("the thread has no running turn to answer a sampling request in");
    }
    const { approvals } = thread.port;
    if (approvals.mode() !== "fullAccess") {
      const answer = await approvals.broker.ask(
        {
          threadId: thread.id,
          turnId: turn.id,
          itemId: request.toolCallId,
          toolName: `mcp__${request.server}__sampling`,
          decisions: ["accept", "decline", "cancel"],
          reason: `The MCP server "${request.server}" asks the model to answer its messages`,
          preview: {
            type: "sampling",
            server: request.server,
            ...(request.systemPrompt !== undefined ? { systemPrompt: request.systemPrompt } : {}),
            messages: request.messages,
            maxTokens: request.maxTokens,
          },
        },
        signal,
      );
      const decision =
        answer.kind === "answered" ? (answer.raw as ItemToolCallRequestApprovalResult).decision : "cancel";
      if (decision !== "accept") throw new SamplingDeclinedError("The user declined the sampling request");
    }
    return sample(model, access, request, signal);
  };
}

async function sample(
  model: Model,
  access: SamplingModelAccess,
  request: Parameters<McpSampler>[0],
  signal: AbortSignal,
): Promise<SamplingReply> {
  const apiKey = await access.apiKey(model);
  const now = Date.now();
  const reply = await access
    .streamFn(
      model,
      {
        ...(request.systemPrompt !== undefined ? { systemPrompt: request.systemPrompt } : {}),
        messages: request.messages.map(
          (message): Message =>
            message.role === "user"
              ? { role: "user", content: message.text, timestamp: now }
              : ({
                  role: "assistant",
                  content: [{ type: "text", text: message.text }],
                  api: model.api,
                  provider: model.provider,
                  model: model.id,
                  usage: emptyUsage(),
                  stopReason: "stop",
                  timestamp: now,
                } satisfies AssistantMessage),
        ),
      },
      {
        maxTokens: request.maxTokens,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(apiKey !== undefined ? { apiKey } : {}),
        disablePromptCacheWrites: true,
        signal,
      },
    )
    .result();
  if (reply.stopReason === "error" || reply.stopReason === "aborted") {
    throw new Error(reply.errorMessage ?? `the model stopped: ${reply.stopReason}`);
  }
  const text = reply.content
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("");
  return {
    text,
    model: `${model.provider}/${model.id}`,
    stopReason: reply.stopReason === "length" ? "maxTokens" : "endTurn",
  };
}
