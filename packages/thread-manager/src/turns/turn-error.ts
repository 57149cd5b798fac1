/**
 * Turn failure summaries: a kind classified from the error text and a message bounded
 * for summaries (`turn/completed`, `thread/turn/completed`); full payloads keep it whole.
 */
import { classifyError } from "@knightcode/ai";
import type { ErrorKind } from "../shapes.ts";

/** Longest `error.message` a turn summary carries. */
export const SUMMARY_ERROR_MESSAGE_LIMIT = 2000;

/** Classifies an error text into the protocol's failure kinds (the model layer's rules). */
export function classifyErrorText(message: string): ErrorKind {
  return classifyError(undefined, message);
}

const KINDS = new Set<string>(["auth", "rateLimit", "contextOverflow", "network", "provider", "other"]);

/** A stored kind when it is one of ours, else a fresh classification of the text. */
export function normalizeErrorKind(kind: string | undefined, message: string): ErrorKind {
  return kind && KINDS.has(kind) ? (kind as ErrorKind) : classifyErrorText(message);
}

/** Bounds a message to the summary limit (by UTF-16 units, never splitting a surrogate pair). */
export function boundErrorMessage(message: string): string {
  if (message.length <= SUMMARY_ERROR_MESSAGE_LIMIT) return message;
  let end = SUMMARY_ERROR_MESSAGE_LIMIT;
  const code = message.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return message.slice(0, end);
}
