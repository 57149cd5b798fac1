/**
 * Shape checks for entries read from disk. A transcript is user-editable and may be
 * damaged, and every reader downstream (history projection, model context, usage)
 * iterates content and reads nested fields: an entry either leaves here in the shape
 * its type promises, or is refused so the caller skips it. Fields that only carry
 * data (a timestamp, a part list) are repaired in place rather than losing the entry.
 */
import type { SessionEntry } from "./entries.ts";

type Json = Record<string, unknown>;

/** The verdict on one raw line after migration. */
export type EntryCheck =
  | { kind: "ok"; entry: SessionEntry }
  /** Kept, but some fields had the wrong type and were replaced. */
  | { kind: "normalised"; entry: SessionEntry }
  | { kind: "invalid" };

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** Checks and repairs one raw entry in place; `invalid` when it cannot be used at all. */
export function checkEntry(line: Json): EntryCheck {
  if (
    typeof line.type !== "string" ||
    line.type === "session" ||
    typeof line.id !== "string" ||
    !(line.parentId === null || typeof line.parentId === "string") ||
    typeof line.timestamp !== "string"
  ) {
    return { kind: "invalid" };
  }
  const fix = new Fixer();
  if (!checkTyped(line, fix)) return { kind: "invalid" };
  const entry = line as unknown as SessionEntry;
  return fix.changed ? { kind: "normalised", entry } : { kind: "ok", entry };
}

/** Records whether anything was repaired. */
class Fixer {
  changed = false;

  set(target: Json, key: string, value: unknown): void {
    target[key] = value;
    this.changed = true;
  }

  /** A finite number at `key`, else `fallback`. */
  number(target: Json, key: string, fallback: number): void {
    if (!isNumber(target[key])) this.set(target, key, fallback);
  }

  /** Drops an optional field of the wrong type. */
  optional(target: Json, key: string, ok: (value: unknown) => boolean): void {
    if (target[key] !== undefined && !ok(target[key])) {
      delete target[key];
      this.changed = true;
    }
  }
}

function entryTime(line: Json): number {
  const ms = Date.parse(line.timestamp as string);
  return Number.isFinite(ms) ? ms : 0;
}

/** Per-type checks: required identifying fields refuse the entry, data fields are repaired. */
function checkTyped(line: Json, fix: Fixer): boolean {
  switch (line.type) {
    case "message":
      return checkMessage(line.message, entryTime(line), fix);
    case "custom_message":
      if (typeof line.customType !== "string") return false;
      fixUserContent(line, fix);
      if (typeof line.display !== "boolean") fix.set(line, "display", false);
      return true;
    case "model_change":
      return typeof line.provider === "string" && typeof line.modelId === "string";
    case "compaction":
      if (typeof line.summary !== "string" || typeof line.firstKeptEntryId !== "string") return false;
      fix.number(line, "tokensBefore", 0);
      fix.optional(line, "usage", isObject);
      if (isObject(line.usage)) fixUsage(line.usage, fix);
      return true;
    case "branch_summary":
      if (typeof line.summary !== "string" || typeof line.fromId !== "string") return false;
      fix.optional(line, "usage", isObject);
      if (isObject(line.usage)) fixUsage(line.usage, fix);
      return true;
    case "custom":
      return typeof line.customType === "string";
    case "label":
      if (typeof line.targetId !== "string") return false;
      fix.optional(line, "label", (v) => typeof v === "string");
      return true;
    case "session_info":
      fix.optional(line, "name", (v) => typeof v === "string");
      return true;
    case "turn_start":
      fix.number(line, "startedAt", entryTime(line));
      return true;
    case "turn_end":
      if (typeof line.turnId !== "string") return false;
      if (line.outcome !== "completed" && line.outcome !== "failed" && line.outcome !== "interrupted") {
        fix.set(line, "outcome", "failed");
      }
      fix.number(line, "completedAt", entryTime(line));
      fix.optional(
        line,
        "error",
        (v) => isObject(v) && typeof v.message === "string" && typeof v.kind === "string",
      );
      return true;
    case "context_edit":
      fixContextEdit(line, fix);
      return true;
    default:
      // Other types (thinking level, approval mode, future or foreign ones) are read
      // defensively where they are used or ignored.
      return true;
  }
}

function checkMessage(message: unknown, time: number, fix: Fixer): boolean {
  if (!isObject(message) || typeof message.role !== "string") return false;
  fix.number(message, "timestamp", time);
  switch (message.role) {
    case "user":
    case "custom":
      fixUserContent(message, fix);
      if (message.role === "custom") {
        if (typeof message.customType !== "string") fix.set(message, "customType", "unknown");
        if (typeof message.display !== "boolean") fix.set(message, "display", false);
      }
      return true;
    case "toolResult":
      if (typeof message.toolCallId !== "string") return false;
      if (typeof message.toolName !== "string") fix.set(message, "toolName", "unknown");
      fixParts(message, fix, isUserPart, true);
      if (typeof message.isError !== "boolean") fix.set(message, "isError", false);
      return true;
    case "assistant":
      fixParts(message, fix, isAssistantPart, true);
      if (!isObject(message.usage)) fix.set(message, "usage", zeroUsage());
      fixUsage(message.usage as Json, fix);
      fix.optional(message, "errorMessage", (v) => typeof v === "string");
      fix.optional(message, "durationMs", isNumber);
      return true;
    case "bashExecution":
      if (typeof message.command !== "string") fix.set(message, "command", "");
      if (typeof message.output !== "string") fix.set(message, "output", "");
      return true;
    case "branchSummary":
    case "compactionSummary":
      if (typeof message.summary !== "string") fix.set(message, "summary", "");
      return true;
    default:
      return true;
  }
}

/** User and custom content: a string or a list of text and image parts. */
function fixUserContent(target: Json, fix: Fixer): void {
  if (typeof target.content === "string") return;
  fixParts(target, fix, isUserPart, false);
}

/** Keeps the well-formed parts of `target.content`; anything that is not a list becomes one. */
function fixParts(target: Json, fix: Fixer, keep: (part: Json) => boolean, textToPart: boolean): void {
  const content = target.content;
  if (!Array.isArray(content)) {
    fix.set(
      target,
      "content",
      textToPart && typeof content === "string" ? [{ type: "text", text: content }] : [],
    );
    return;
  }
  const kept = content.filter((part): part is Json => isObject(part) && keep(part));
  if (kept.length !== content.length) fix.set(target, "content", kept);
  for (const part of kept) {
    if (part.type === "toolCall" && !isObject(part.arguments)) fix.set(part, "arguments", {});
  }
}

function isUserPart(part: Json): boolean {
  if (part.type === "text") return typeof part.text === "string";
  if (part.type === "image") return typeof part.data === "string" && typeof part.mimeType === "string";
  return false;
}

function isAssistantPart(part: Json): boolean {
  if (part.type === "text") return typeof part.text === "string";
  if (part.type === "thinking") return typeof part.thinking === "string";
  if (part.type === "toolCall") return typeof part.id === "string" && typeof part.name === "string";
  return false;
}

const USAGE_COUNTS = ["input", "output", "cacheRead", "cacheWrite"] as const;
const COST_FIELDS = ["input", "output", "cacheRead", "cacheWrite", "total"] as const;

function zeroUsage(): Json {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: zeroCost() };
}

function zeroCost(): Json {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

/** Counts present with a wrong type become 0; older files may lack some, which readers tolerate. */
function fixUsage(usage: Json, fix: Fixer): void {
  for (const key of USAGE_COUNTS) if (usage[key] !== undefined) fix.number(usage, key, 0);
  fix.optional(usage, "totalTokens", isNumber);
  if (usage.cost !== undefined && !isObject(usage.cost)) fix.set(usage, "cost", zeroCost());
  const cost = usage.cost;
  if (isObject(cost)) for (const key of COST_FIELDS) if (cost[key] !== undefined) fix.number(cost, key, 0);
}

function fixContextEdit(line: Json, fix: Fixer): void {
  if (line.omit !== undefined) {
    const omit = Array.isArray(line.omit) ? line.omit.filter((id) => typeof id === "string") : [];
    if (!Array.isArray(line.omit) || omit.length !== line.omit.length) fix.set(line, "omit", omit);
  }
  if (line.replace !== undefined) {
    const replace = Array.isArray(line.replace)
      ? line.replace.filter(
          (r): r is Json =>
            isObject(r) && typeof r.entryId === "string" && checkMessage(r.message, entryTime(line), fix),
        )
      : [];
    if (!Array.isArray(line.replace) || replace.length !== line.replace.length)
      fix.set(line, "replace", replace);
  }
}
