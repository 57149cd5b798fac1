/**
 * What the model sees: a pure projection of one branch (root -> leaf entries) into
 * messages, aware of compactions and context edits, plus the branch's settings.
 */
import { type Message, THINKING_LEVELS, type ThinkingLevel } from "@knightcode/ai";
import {
  type AgentMessage,
  APPROVAL_MODES,
  type ApprovalMode,
  type CompactionEntry,
  type SessionEntry,
  type SessionHeader,
} from "./entries.ts";

/** A message of the projection and the entry it came from. */
export interface ProjectedMessage {
  /** The entry that produced the message (the compaction entry for its summary). */
  entryId: string;
  message: AgentMessage;
}

/** The model-facing state of a branch. */
export interface SessionContext {
  messages: AgentMessage[];
  /** The same messages with their source entry IDs (compaction cuts by entry). */
  projection: ProjectedMessage[];
  model: { provider: string; modelId: string } | null;
  thinkingLevel: ThinkingLevel;
  /** Latest persisted mode on the branch; an invalid stored value restores as `ask`; undefined when none. */
  approvalMode: ApprovalMode | undefined;
  /** The latest compaction on the branch, if any. */
  compaction: CompactionEntry | undefined;
}

/** Context edits in force on a branch: omitted entry IDs and replacement messages. */
export interface ContextEdits {
  omitted: Set<string>;
  replaced: Map<string, AgentMessage>;
}

/** Collects every `context_edit` on the path; later edits win over earlier ones for the same entry. */
export function collectContextEdits(path: readonly SessionEntry[]): ContextEdits {
  const omitted = new Set<string>();
  const replaced = new Map<string, AgentMessage>();
  for (const entry of path) {
    if (entry.type !== "context_edit") continue;
    for (const id of entry.omit ?? []) omitted.add(id);
    for (const r of entry.replace ?? []) {
      replaced.set(r.entryId, r.message);
      omitted.delete(r.entryId);
    }
  }
  return { omitted, replaced };
}

function toTime(iso: string): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? 0 : t;
}

/** The message an entry contributes to the model context, before edits; undefined for metadata entries. */
export function entryMessage(entry: SessionEntry): AgentMessage | undefined {
  switch (entry.type) {
    case "message":
      return entry.message;
    case "custom_message":
      return {
        role: "custom",
        customType: entry.customType,
        content: entry.content,
        display: entry.display,
        details: entry.details,
        timestamp: toTime(entry.timestamp),
      };
    case "branch_summary":
      return entry.summary
        ? {
            role: "branchSummary",
            summary: entry.summary,
            fromId: entry.fromId,
            timestamp: toTime(entry.timestamp),
          }
        : undefined;
    default:
      return undefined;
  }
}

/**
 * Projects a branch into model messages with their entry IDs. With a compaction on
 * the path: its summary, then entries from `firstKeptEntryId` up to it, then what
 * follows. Omitted entries vanish; replaced entries contribute their replacement.
 */
export function projectSession(path: readonly SessionEntry[]): ProjectedMessage[] {
  const edits = collectContextEdits(path);
  const out: ProjectedMessage[] = [];
  const emit = (entry: SessionEntry) => {
    if (edits.omitted.has(entry.id)) return;
    const message = edits.replaced.get(entry.id) ?? entryMessage(entry);
    if (message) out.push({ entryId: entry.id, message });
  };
  let compactionIndex = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i]!.type === "compaction") {
      compactionIndex = i;
      break;
    }
  }
  if (compactionIndex === -1) {
    for (const entry of path) emit(entry);
    return out;
  }
  const compaction = path[compactionIndex] as CompactionEntry;
  if (!edits.omitted.has(compaction.id)) {
    out.push({
      entryId: compaction.id,
      message: edits.replaced.get(compaction.id) ?? {
        role: "compactionSummary",
        summary: compaction.summary,
        tokensBefore: compaction.tokensBefore,
        timestamp: toTime(compaction.timestamp),
      },
    });
  }
  let kept = false;
  for (let i = 0; i < compactionIndex; i++) {
    const entry = path[i]!;
    if (entry.id === compaction.firstKeptEntryId) kept = true;
    if (kept) emit(entry);
  }
  for (let i = compactionIndex + 1; i < path.length; i++) emit(path[i]!);
  return out;
}

/** Builds the model context and branch settings from a root -> leaf path. Pure. */
export function buildSessionContext(path: readonly SessionEntry[], header?: SessionHeader): SessionContext {
  let model: SessionContext["model"] =
    header?.provider && header.modelId ? { provider: header.provider, modelId: header.modelId } : null;
  let thinkingLevel = asThinkingLevel(header?.thinkingLevel) ?? "off";
  let approvalMode: ApprovalMode | undefined;
  let compaction: CompactionEntry | undefined;
  for (const entry of path) {
    switch (entry.type) {
      case "model_change":
        model = { provider: entry.provider, modelId: entry.modelId };
        break;
      case "thinking_level_change":
        thinkingLevel = asThinkingLevel(entry.thinkingLevel) ?? thinkingLevel;
        break;
      case "approval_mode":
        approvalMode = (APPROVAL_MODES as readonly unknown[]).includes(entry.mode) ? entry.mode : "ask";
        break;
      case "compaction":
        compaction = entry;
        break;
      case "message":
        if (entry.message.role === "assistant") {
          model = { provider: entry.message.provider, modelId: entry.message.model };
        }
        break;
    }
  }
  const projection = projectSession(path);
  return {
    messages: projection.map((p) => p.message),
    projection,
    model,
    thinkingLevel,
    approvalMode,
    compaction,
  };
}

function asThinkingLevel(value: unknown): ThinkingLevel | undefined {
  return (THINKING_LEVELS as readonly unknown[]).includes(value) ? (value as ThinkingLevel) : undefined;
}

const COMPACTION_PREFIX =
  "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
const BRANCH_PREFIX =
  "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";

/** Converts stored messages to provider messages: bash runs, custom messages and summaries become user-role text. */
export function toModelMessages(messages: readonly AgentMessage[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "user":
      case "assistant":
      case "toolResult":
        out.push(m);
        break;
      case "bashExecution":
        if (!m.excludeFromContext) {
          out.push({ role: "user", content: [{ type: "text", text: bashText(m) }], timestamp: m.timestamp });
        }
        break;
      case "custom":
        out.push({
          role: "user",
          content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content,
          timestamp: m.timestamp,
        });
        break;
      case "branchSummary":
        out.push({
          role: "user",
          content: [{ type: "text", text: `${BRANCH_PREFIX}${m.summary}\n</summary>` }],
          timestamp: m.timestamp,
        });
        break;
      case "compactionSummary":
        out.push({
          role: "user",
          content: [{ type: "text", text: `${COMPACTION_PREFIX}${m.summary}\n</summary>` }],
          timestamp: m.timestamp,
        });
        break;
    }
  }
  return out;
}

function bashText(m: Extract<AgentMessage, { role: "bashExecution" }>): string {
  let text = `Ran \`${m.command}\`\n`;
  text += m.output ? `\`\`\`\n${m.output}\n\`\`\`` : "(no output)";
  if (m.cancelled) text += "\n\n(command cancelled)";
  else if (m.exitCode !== undefined && m.exitCode !== null && m.exitCode !== 0) {
    text += `\n\nCommand exited with code ${m.exitCode}`;
  }
  if (m.truncated && m.fullOutputPath) text += `\n\n[Output truncated. Full output: ${m.fullOutputPath}]`;
  return text;
}
