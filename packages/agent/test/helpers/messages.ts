import type { Message, UserMessage } from "@knightcode/ai";

/** A user message with this text. */
export function user(text: string): UserMessage {
  return { role: "user", content: text, timestamp: Date.now() };
}

/** The text of a message's text parts (or string content), joined. */
export function textOf(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((part) => (part.type === "text" ? part.text : ""))
    .filter(Boolean)
    .join("");
}
