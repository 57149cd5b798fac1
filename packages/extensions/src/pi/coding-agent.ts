/**
 * `@mariozechner/pi-coding-agent` (and `@earendil-works/pi-coding-agent`) as a pi
 * extension imports it, backed by KnightCode: the tool factories, `defineTool`, the
 * truncation helpers and limits, `withFileMutationQueue`, `getAgentDir`, `convertToLlm`,
 * `serializeConversation`, `parseFrontmatter`, and inert stand-ins for the terminal
 * components (nothing renders without a terminal). Types are the extension's business:
 * Bun drops type-only imports, so only values need to exist here.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import {
  formatSize,
  truncateHead as knightTruncateHead,
  truncateTail as knightTruncateTail,
  MAX_BYTES,
  MAX_LINES,
  PathLock,
} from "@knightcode/agent";
import { serializeConversation as knightSerialize } from "@knightcode/compaction";
import { parseFrontmatter as knightParseFrontmatter, resolveAgentDir } from "@knightcode/config";
import { type AgentMessage, toModelMessages } from "@knightcode/session-store";
import { plainTheme } from "./theme.ts";
import { Container, Editor, Loader } from "./tui.ts";

export * from "./tool-factories.ts";

/** The version pi extensions read; KnightCode speaks pi's extension API of this release. */
export const VERSION = "0.73.1";

export const DEFAULT_MAX_BYTES = MAX_BYTES;
export const DEFAULT_MAX_LINES = MAX_LINES;
export { formatSize };

/** The agent directory (KnightCode's: `KNIGHTCODE_CODING_AGENT_DIR` or `~/.knightcode/agent`). */
export function getAgentDir(): string {
  return resolveAgentDir(process.env);
}

/** A tool definition as written (pi's helper only narrows its type). */
export function defineTool<T>(tool: T): T {
  return tool;
}

const mutationQueue = new PathLock();

/** Runs `fn` after every earlier mutation of the same file (by real path) has finished. */
export function withFileMutationQueue<T>(path: string, fn: () => Promise<T>): Promise<T> {
  let key = resolve(path);
  try {
    key = realpathSync(key);
  } catch {
    // a file still to be created queues under its resolved path
  }
  return mutationQueue.run([key], fn);
}

type Limits = { maxLines?: number; maxBytes?: number };

/** pi's truncation result over KnightCode's (same cut rules and limits). */
function piTruncation(result: ReturnType<typeof knightTruncateHead>, limits: Limits) {
  return {
    ...result,
    outputBytes: new TextEncoder().encode(result.content).length,
    lastLinePartial: result.partialFirstLine,
    firstLineExceedsLimit: result.firstLineTooLong,
    maxLines: limits.maxLines ?? MAX_LINES,
    maxBytes: limits.maxBytes ?? MAX_BYTES,
  };
}

export function truncateHead(content: string, options: Limits = {}) {
  return piTruncation(knightTruncateHead(content, options), options);
}

export function truncateTail(content: string, options: Limits = {}) {
  return piTruncation(knightTruncateTail(content, options), options);
}

/** One line cut to `maxChars` characters. */
export function truncateLine(line: string, maxChars = 500): { text: string; wasTruncated: boolean } {
  return line.length <= maxChars
    ? { text: line, wasTruncated: false }
    : { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}

/** Session messages as the model receives them (custom messages and summaries become user text). */
export function convertToLlm(messages: readonly AgentMessage[]) {
  return toModelMessages(messages);
}

/** Messages as plain text for a summary prompt (KnightCode's compaction serializer). */
export function serializeConversation(messages: readonly AgentMessage[]): string {
  return knightSerialize(messages);
}

/** pi's `{ frontmatter, body }` split of a Markdown file. */
export function parseFrontmatter<T extends Record<string, unknown> = Record<string, unknown>>(
  content: string,
): { frontmatter: T; body: string } {
  const { fields, body } = knightParseFrontmatter(content);
  return { frontmatter: fields as T, body };
}

export function stripFrontmatter(content: string): string {
  return knightParseFrontmatter(content).body;
}

/** pi's tool-result type guards. */
const resultOf = (name: string) => (event: { toolName?: string }) => event?.toolName === name;
export const isBashToolResult = resultOf("bash");
export const isReadToolResult = resultOf("read");
export const isEditToolResult = resultOf("edit");
export const isWriteToolResult = resultOf("write");
export const isGrepToolResult = resultOf("grep");
export const isFindToolResult = resultOf("find");
export const isLsToolResult = resultOf("ls");

/** pi's `isToolCallEventType("bash", event)`. */
export function isToolCallEventType(name: string, event: { toolName?: string }): boolean {
  return event?.toolName === name;
}

// Terminal pieces: inert without a terminal.
export const getMarkdownTheme = () => ({});
export const getSelectListTheme = () => ({});
export const getSettingsListTheme = () => ({});
export const initTheme = () => plainTheme();
export const highlightCode = (code: string) => code.split("\n");
export const getLanguageFromPath = () => undefined;
export const keyHint = (_action: string, description: string) => description;
export const keyText = (key: string) => key;
export const rawKeyHint = (_key: string, description: string) => description;
export const copyToClipboard = async () => {};
export class BorderedLoader extends Loader {
  readonly signal = new AbortController().signal;
  onAbort: (() => void) | undefined;
}
export class DynamicBorder extends Container {}
export class CustomEditor extends Editor {}
