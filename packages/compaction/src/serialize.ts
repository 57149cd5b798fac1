/**
 * Turns messages into plain labelled text for the summarizer. Sending a transcript as
 * text, not as conversation turns, keeps the model from continuing it.
 */
import type { ImageContent, TextContent } from "@knightcode/ai";
import type { AgentMessage } from "@knightcode/session-store";

/** Tool results longer than this are cut in summarizer input; their full text is not needed. */
export const TOOL_RESULT_MAX_CHARS = 2000;

/** Cuts `text` to `max` characters and says how many were dropped. */
export function truncateForSummary(text: string, max = TOOL_RESULT_MAX_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n\n[... ${text.length - max} more characters truncated]`;
}

function textOf(content: string | readonly (TextContent | ImageContent)[]): string {
  if (typeof content === "string") return content;
  return content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("");
}

function bashText(message: Extract<AgentMessage, { role: "bashExecution" }>): string {
  const status = message.cancelled
    ? " (cancelled)"
    : message.exitCode !== undefined && message.exitCode !== 0
      ? ` (exit code ${message.exitCode})`
      : "";
  return `Ran \`${message.command}\`${status}\n${message.output}`;
}

/** The labelled lines for one message (empty when it carries no text). */
export function serializeMessage(message: AgentMessage): string[] {
  switch (message.role) {
    case "user":
    case "custom": {
      const text = textOf(message.content);
      return text ? [`[User]: ${text}`] : [];
    }
    case "bashExecution":
      return message.excludeFromContext ? [] : [`[User]: ${bashText(message)}`];
    case "branchSummary":
      return [`[User]: Summary of another branch:\n${message.summary}`];
    case "compactionSummary":
      return [`[User]: Summary of earlier conversation:\n${message.summary}`];
    case "toolResult": {
      const text = textOf(message.content);
      return text ? [`[Tool result]: ${truncateForSummary(text)}`] : [];
    }
    case "assistant": {
      const thinking: string[] = [];
      const text: string[] = [];
      const calls: string[] = [];
      for (const block of message.content) {
        if (block.type === "thinking") thinking.push(block.thinking);
        else if (block.type === "text") text.push(block.text);
        else {
          const args = Object.entries(block.arguments).map(
            ([key, value]) => `${key}=${JSON.stringify(value)}`,
          );
          calls.push(`${block.name}(${args.join(", ")})`);
        }
      }
      const lines: string[] = [];
      if (thinking.length > 0) lines.push(`[Assistant thinking]: ${thinking.join("\n")}`);
      if (text.length > 0) lines.push(`[Assistant]: ${text.join("\n")}`);
      if (calls.length > 0) lines.push(`[Assistant tool calls]: ${calls.join("; ")}`);
      return lines;
    }
  }
}

/** The whole transcript as labelled text, messages separated by blank lines. */
export function serializeConversation(messages: readonly AgentMessage[]): string {
  return messages.flatMap(serializeMessage).join("\n\n");
}
