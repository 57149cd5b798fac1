/**
 * Cumulative file tracking: which files the summarized work read and modified, taken
 * from read/write/edit tool calls with a path and carried over from earlier
 * KnightCode-generated summaries.
 */
import type { AgentMessage } from "@knightcode/session-store";

/** Paths touched by tool calls, by operation. */
export interface FileOperations {
  read: Set<string>;
  written: Set<string>;
  edited: Set<string>;
}

/** The file lists stored in `details` of default compaction and branch summary entries. */
export interface FileListDetails {
  readFiles: string[];
  modifiedFiles: string[];
}

/** An empty set of file operations. */
export function createFileOps(): FileOperations {
  return { read: new Set(), written: new Set(), edited: new Set() };
}

/** Adds the paths of read/write/edit tool calls in an assistant message. */
export function addFileOpsFromMessage(message: AgentMessage, ops: FileOperations): void {
  if (message.role !== "assistant") return;
  for (const block of message.content) {
    if (block.type !== "toolCall") continue;
    const path = block.arguments.path;
    if (typeof path !== "string" || path === "") continue;
    if (block.name === "read") ops.read.add(path);
    else if (block.name === "write") ops.written.add(path);
    else if (block.name === "edit") ops.edited.add(path);
  }
}

/** Adds file lists from an earlier summary's `details`, ignoring anything malformed. */
export function addFileOpsFromDetails(details: unknown, ops: FileOperations): void {
  if (typeof details !== "object" || details === null) return;
  const { readFiles, modifiedFiles } = details as Partial<Record<keyof FileListDetails, unknown>>;
  if (Array.isArray(readFiles)) for (const f of readFiles) if (typeof f === "string") ops.read.add(f);
  if (Array.isArray(modifiedFiles))
    for (const f of modifiedFiles) if (typeof f === "string") ops.edited.add(f);
}

/** Sorted lists: files only read, and files written or edited. */
export function computeFileLists(ops: FileOperations): FileListDetails {
  const modified = new Set([...ops.edited, ...ops.written]);
  const readFiles = [...ops.read].filter((f) => !modified.has(f)).sort();
  return { readFiles, modifiedFiles: [...modified].sort() };
}

/** The `<read-files>` / `<modified-files>` blocks appended to a summary, or "" when both are empty. */
export function formatFileLists(lists: FileListDetails): string {
  const blocks: string[] = [];
  if (lists.readFiles.length > 0) blocks.push(`<read-files>\n${lists.readFiles.join("\n")}\n</read-files>`);
  if (lists.modifiedFiles.length > 0) {
    blocks.push(`<modified-files>\n${lists.modifiedFiles.join("\n")}\n</modified-files>`);
  }
  return blocks.length === 0 ? "" : `\n\n${blocks.join("\n\n")}`;
}
