/**
 * KnightCode tool calls as ACP tool calls: kind, title, locations and content, from the
 * tool's name and input. Pure: the old text of a file about to be written is read by the
 * caller and passed in.
 */
import { isAbsolute, resolve } from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind } from "@agentclientprotocol/sdk";
import type { ToolCallItem } from "@knightcode/app-server-protocol";

const KINDS: Record<string, ToolKind> = {
  read: "read",
  ls: "read",
  write: "edit",
  edit: "edit",
  bash: "execute",
  grep: "search",
  find: "search",
  submit_plan: "think",
};

const TITLE_LIMIT = 200;

/** The ACP kind of a tool; extension and MCP tools are `other`. */
export function toolKind(toolName: string): ToolKind {
  return KINDS[toolName] ?? "other";
}

function field(input: unknown, name: string): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const value = (input as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

function bounded(text: string): string {
  const line = text.replace(/\s*\n\s*/g, " ");
  return line.length > TITLE_LIMIT ? `${line.slice(0, TITLE_LIMIT - 1)}…` : line;
}

/** A one-line title: what the call does, in the words an editor shows in its list. */
export function toolTitle(toolName: string, input: unknown): string {
  const path = field(input, "path");
  switch (toolName) {
    case "bash":
      return bounded(field(input, "command") ?? "bash");
    case "read":
      return path ? `Read ${path}` : "Read";
    case "write":
      return path ? `Write ${path}` : "Write";
    case "edit":
      return path ? `Edit ${path}` : "Edit";
    case "ls":
      return `List ${path ?? "."}`;
    case "grep":
    case "find": {
      const pattern = field(input, "pattern");
      const where = path ? ` in ${path}` : "";
      return bounded(pattern ? `${toolName} ${pattern}${where}` : toolName);
    }
    default:
      return toolName;
  }
}

/** The absolute path a path-taking tool works on, against the thread's cwd. */
export function toolPath(cwd: string, input: unknown): string | undefined {
  const path = field(input, "path");
  if (path === undefined || path === "") return undefined;
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** The files a call touches, so the editor can follow along. */
export function toolLocations(toolName: string, cwd: string, input: unknown): ToolCallLocation[] {
  const path = toolPath(cwd, input);
  if (path === undefined) return toolName === "ls" ? [{ path: cwd }] : [];
  const offset =
    typeof (input as { offset?: unknown }).offset === "number"
      ? (input as { offset: number }).offset
      : undefined;
  return toolName === "read" && offset !== undefined && offset > 0 ? [{ path, line: offset }] : [{ path }];
}

/**
 * The diff blocks of a write or edit. A write replaces the whole file (`oldText` null for
 * a new one); an edit shows each replacement as the model asked for it.
 */
export function toolDiffs(
  toolName: string,
  cwd: string,
  input: unknown,
  oldText: string | null | undefined,
): ToolCallContent[] {
  const path = toolPath(cwd, input);
  if (path === undefined) return [];
  if (toolName === "write") {
    const content = field(input, "content");
    if (content === undefined || oldText === undefined) return [];
    return [{ type: "diff", path, oldText, newText: content }];
  }
  if (toolName === "edit") {
    const edits = (input as { edits?: unknown }).edits;
    if (!Array.isArray(edits)) return [];
    return edits.flatMap((edit): ToolCallContent[] => {
      const before = field(edit, "oldText");
      const after = field(edit, "newText");
      return before === undefined || after === undefined
        ? []
        : [{ type: "diff", path, oldText: before, newText: after }];
    });
  }
  return [];
}

/** The ACP status of a finished (or replayed) call; a declined call failed from the editor's view. */
export function finalStatus(status: ToolCallItem["status"]): ToolCallStatus {
  switch (status) {
    case "completed":
      return "completed";
    case "inProgress":
      return "in_progress";
    default:
      return "failed";
  }
}

/** The output the model saw, as a text block. */
export function outputContent(item: ToolCallItem): ToolCallContent[] {
  if (item.output === undefined || item.output === "") return [];
  return [{ type: "content", content: { type: "text", text: item.output } }];
}
