/**
 * File changes reported by completed edit/write calls. Tools report them in their
 * result `details.fileChanges`; an extension's report is validated as a whole and a
 * malformed one is ignored entirely, because a half-trusted list would mislead a reviewer.
 */
import type { ToolResultMessage } from "@knightcode/ai";
import type { FileChange } from "../shapes.ts";

const KINDS = new Set(["add", "modify", "delete"]);

function isFileChange(value: unknown): value is FileChange {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  if (typeof v.path !== "string" || v.path.length === 0) return false;
  if (typeof v.kind !== "string" || !KINDS.has(v.kind)) return false;
  if (v.diff !== undefined && typeof v.diff !== "string") return false;
  return Object.keys(v).every((k) => k === "path" || k === "kind" || k === "diff");
}

/** Validates a whole `fileChanges` report; undefined when absent or malformed. */
export function validateFileChanges(report: unknown): FileChange[] | undefined {
  if (!Array.isArray(report) || !report.every(isFileChange)) return undefined;
  // An empty patch is no diff at all: the spec turns only non-empty patches into `diff`.
  return report.map((c) =>
    c.diff ? { path: c.path, kind: c.kind, diff: c.diff } : { path: c.path, kind: c.kind },
  );
}

/** Changes a finished tool call reports; failed calls report none. */
export function fileChangesOf(
  toolName: string,
  args: Record<string, unknown>,
  result: ToolResultMessage,
): FileChange[] | undefined {
  if (result.isError) return undefined;
  const details = result.details as Record<string, unknown> | undefined;
  const report = details && typeof details === "object" ? details.fileChanges : undefined;
  // A malformed report is ignored as a whole: the call then reports no changes at all,
  // not changes guessed from its arguments.
  if (report !== undefined) return validateFileChanges(report);
  // Built-in edit/write results written before fileChanges existed (pi transcripts) still
  // name their path in the arguments and, for edit, a patch in details.diff.
  if ((toolName === "edit" || toolName === "write") && typeof args.path === "string") {
    const diff =
      details && typeof details.diff === "string" && details.diff.length > 0 ? details.diff : undefined;
    // Without a report the file may or may not have existed before; "modify" claims least.
    return [diff ? { path: args.path, kind: "modify", diff } : { path: args.path, kind: "modify" }];
  }
  return undefined;
}
