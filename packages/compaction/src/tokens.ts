/**
 * Token accounting for compaction: the provider's own count where we have one, and a
 * deliberately pessimistic characters/4 estimate for everything the provider has not
 * counted yet.
 */
import type { AssistantMessage, ImageContent, TextContent, Usage } from "@knightcode/ai";
import type { AgentMessage } from "@knightcode/session-store";

/** Characters an image is assumed to cost, so a screenshot counts as ~1,200 tokens. */
export const IMAGE_CHARS = 4800;

/** Tokens a usage record says the request and response occupied. */
export function usageContextTokens(usage: Usage): number {
  // Old pi files lack totalTokens; a zero total also means "not reported".
  return usage.totalTokens || usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

function contentChars(content: string | readonly (TextContent | ImageContent)[]): number {
  if (typeof content === "string") return content.length;
  let chars = 0;
  for (const block of content) {
    if (block.type === "text") chars += block.text.length;
    else if (block.type === "image") chars += IMAGE_CHARS;
  }
  return chars;
}

/** Estimated characters one message contributes to a model request. */
export function messageChars(message: AgentMessage): number {
  switch (message.role) {
    case "user":
    case "toolResult":
    case "custom":
      return contentChars(message.content);
    case "assistant": {
      let chars = 0;
      for (const block of message.content) {
        if (block.type === "text") chars += block.text.length;
        else if (block.type === "thinking") chars += block.thinking.length;
        else chars += block.name.length + JSON.stringify(block.arguments).length;
      }
      return chars;
    }
    case "bashExecution":
      return message.command.length + message.output.length;
    case "branchSummary":
    case "compactionSummary":
      return message.summary.length;
  }
}

/** Estimated tokens of one message: characters / 4, rounded up. */
export function estimateMessageTokens(message: AgentMessage): number {
  return Math.ceil(messageChars(message) / 4);
}

/** True for an assistant message whose usage reflects a completed request. */
export function hasReliableUsage(message: AgentMessage): message is AssistantMessage {
  // Aborted and failed requests report partial or zero usage, which would undercount.
  return message.role === "assistant" && message.stopReason !== "aborted" && message.stopReason !== "error";
}

/** How a context-size figure was put together. */
export interface ContextTokenEstimate {
  tokens: number;
  /** Tokens reported by the last successful assistant response (0 when there is none). */
  usageTokens: number;
  /** Estimated tokens of the messages after that response. */
  trailingTokens: number;
  /** Index of that response in the messages, or undefined. */
  lastUsageIndex: number | undefined;
}

/**
 * Context tokens of a message list: last successful usage plus an estimate of what
 * follows it. Usage before `usableFrom` is ignored (it measured a context that a later
 * compaction replaced), so those messages are estimated instead.
 */
export function estimateContextTokens(
  messages: readonly AgentMessage[],
  usableFrom = 0,
): ContextTokenEstimate {
  let lastUsageIndex: number | undefined;
  for (let i = messages.length - 1; i >= usableFrom; i--) {
    const message = messages[i];
    if (message && hasReliableUsage(message)) {
      lastUsageIndex = i;
      break;
    }
  }
  const usageMessage = lastUsageIndex === undefined ? undefined : messages[lastUsageIndex];
  const usageTokens = usageMessage?.role === "assistant" ? usageContextTokens(usageMessage.usage) : 0;
  let trailingTokens = 0;
  for (let i = (lastUsageIndex ?? -1) + 1; i < messages.length; i++) {
    const message = messages[i];
    if (message) trailingTokens += estimateMessageTokens(message);
  }
  return { tokens: usageTokens + trailingTokens, usageTokens, trailingTokens, lastUsageIndex };
}
