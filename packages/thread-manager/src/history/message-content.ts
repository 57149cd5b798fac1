/**
 * Reading and making message content: the one place that says what a message's text is
 * (its text parts joined by newlines) and builds the user message a turn sends. The
 * projection, titles, the tree's previews, a turn's hooks and its steering list all read
 * text through `contentText`.
 */
import type { ImageContent, TextContent, UserMessage } from "@knightcode/ai";

/** Content as user, custom and tool-result messages hold it. */
export type MessageContent = string | readonly (TextContent | ImageContent)[];

/** Text of user/custom content, parts joined by newlines. */
export function contentText(content: MessageContent): string {
  if (typeof content === "string") return content;
  return content
    .filter((p): p is TextContent => p.type === "text")
    .map((p) => p.text)
    .join("\n");
}

/** The images of user/custom content, in order. */
export function contentImages(content: MessageContent): ImageContent[] {
  if (typeof content === "string") return [];
  return content.filter((p): p is ImageContent => p.type === "image");
}

/** A user message as the agent and the transcript hold it; `context` parts follow the text. */
export function userMessage(
  text: string,
  images: ImageContent[],
  now: number,
  context: readonly (TextContent | ImageContent)[] = [],
): UserMessage {
  const parts = [...context, ...images];
  return {
    role: "user",
    content: parts.length > 0 ? [{ type: "text", text }, ...parts] : text,
    timestamp: now,
  };
}
