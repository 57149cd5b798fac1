/**
 * The session file format: a header line, then one entry per line forming a tree.
 * Shared with pi (versions 1-3 are read and migrated in memory); KnightCode writes
 * version 3 and adds turn markers, context edits and the approval mode entry.
 */
import type {
  AssistantMessage,
  ImageContent,
  Message,
  TextContent,
  ThinkingLevel,
  Usage,
} from "@knightcode/ai";

/** The header version KnightCode writes. */
export const CURRENT_SESSION_VERSION = 3;

/** Line 1 of every transcript. */
export interface SessionHeader {
  type: "session";
  version?: number;
  /** UUIDv7 for new sessions; pi files may hold a v4. This is the thread ID. */
  id: string;
  /** ISO time of creation. */
  timestamp: string;
  cwd: string;
  /** Path of the session this one was forked from (pi calls it branchedFrom in v1). */
  parentSession?: string;
  /** The parent's header ID, cached so listings need not open the parent. */
  forkedFromId?: string;
  /** pi v1 headers carried the starting model and thinking level; read as the branch's initial settings. */
  provider?: string;
  modelId?: string;
  thinkingLevel?: string;
  /** KnightCode: the server-owned git worktree the thread works in (its cwd is inside it). */
  worktree?: SessionWorktree;
}

/** A thread's worktree as its header records it, so a resume can reopen or recreate it. */
export interface SessionWorktree {
  name: string;
  path: string;
  branch: string;
  baseRef: string;
  baseCommit: string;
  /** The main checkout's top level. */
  repository: string;
  sourceBranch?: string;
}

/** Whether a parsed header's `worktree` has the shape KnightCode writes. */
export function isSessionWorktree(value: unknown): value is SessionWorktree {
  if (typeof value !== "object" || value === null) return false;
  const w = value as Record<string, unknown>;
  const strings = ["name", "path", "branch", "baseRef", "baseCommit", "repository"];
  return (
    strings.every((key) => typeof w[key] === "string") &&
    (w.sourceBranch === undefined || typeof w.sourceBranch === "string")
  );
}

/** Any line of a session file. */
export type SessionFileLine = SessionHeader | SessionEntry;

/** Extra message roles the coding agent stores; they become user-role context for the model. */
export interface BashExecutionMessage {
  role: "bashExecution";
  command: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  excludeFromContext?: boolean;
  timestamp: number;
}

/** An extension message sent to the model as user-role context. */
export interface CustomMessage<T = unknown> {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: T;
  timestamp: number;
}

/** The summary of an abandoned branch, as the model sees it. */
export interface BranchSummaryMessage {
  role: "branchSummary";
  summary: string;
  fromId: string;
  timestamp: number;
}

/** The summary that replaces compacted history, as the model sees it. */
export interface CompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  tokensBefore: number;
  timestamp: number;
}

/** Every message role a session can hold. */
export type AgentMessage =
  | Message
  | BashExecutionMessage
  | CustomMessage
  | BranchSummaryMessage
  | CompactionSummaryMessage;

interface EntryBase {
  id: string;
  parentId: string | null;
  /** ISO time. */
  timestamp: string;
}

/** A message of the conversation. */
export interface MessageEntry extends EntryBase {
  type: "message";
  message: AgentMessage;
}

/** The user switched models. */
export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}

/** The user changed the thinking level. */
export interface ThinkingLevelChangeEntry extends EntryBase {
  type: "thinking_level_change";
  thinkingLevel: ThinkingLevel;
}

/** A compaction: the summary replaces history before `firstKeptEntryId`. */
export interface CompactionEntry<T = unknown> extends EntryBase {
  type: "compaction";
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: T;
  /** True when an extension supplied the summary. */
  fromHook?: boolean;
  usage?: Usage;
}

/** A summary of the branch navigated away from (`fromId`). */
export interface BranchSummaryEntry<T = unknown> extends EntryBase {
  type: "branch_summary";
  summary: string;
  fromId: string;
  details?: T;
  fromHook?: boolean;
  usage?: Usage;
}

/** Extension state; never sent to the model. */
export interface CustomEntry<T = unknown> extends EntryBase {
  type: "custom";
  customType: string;
  data?: T;
}

/** An extension message that is sent to the model (as user-role context). */
export interface CustomMessageEntry<T = unknown> extends EntryBase {
  type: "custom_message";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: T;
}

/** A user bookmark on an entry; `undefined` clears it. */
export interface LabelEntry extends EntryBase {
  type: "label";
  targetId: string;
  label: string | undefined;
}

/** Display name of the session. */
export interface SessionInfoEntry extends EntryBase {
  type: "session_info";
  name?: string;
}

/** Durable start of a turn; its ID is the turn ID. */
export interface TurnStartEntry extends EntryBase {
  type: "turn_start";
  /** Unix milliseconds. */
  startedAt: number;
}

/** How a turn ended. */
export type TurnOutcome = "completed" | "failed" | "interrupted";

/** Durable end of a turn. */
export interface TurnEndEntry extends EntryBase {
  type: "turn_end";
  turnId: string;
  outcome: TurnOutcome;
  error?: { message: string; kind: string };
  /** Unix milliseconds. */
  completedAt: number;
}

/**
 * Changes what the model sees without deleting history: `omit` hides entries from the
 * projection; `replace` substitutes a message for an entry's message.
 */
export interface ContextEditEntry extends EntryBase {
  type: "context_edit";
  omit?: string[];
  replace?: { entryId: string; message: AgentMessage }[];
  reason?: string;
}

/** When tools need the user's approval. */
export type ApprovalMode = "ask" | "autoEdit" | "fullAccess";

/** Every approval mode a branch may persist; anything else restores as `ask`. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ["ask", "autoEdit", "fullAccess"];

/** The effective approval mode, persisted on the branch. */
export interface ApprovalModeEntry extends EntryBase {
  type: "approval_mode";
  mode: ApprovalMode;
}

/** Every entry type a transcript can hold after the header. */
export type SessionEntry =
  | MessageEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | SessionInfoEntry
  | TurnStartEntry
  | TurnEndEntry
  | ContextEditEntry
  | ApprovalModeEntry;

/** An entry before the store assigns `id`, `parentId` and `timestamp`. */
export type NewEntry = SessionEntry extends infer E
  ? E extends SessionEntry
    ? Omit<E, "id" | "parentId" | "timestamp"> & { timestamp?: string }
    : never
  : never;

/** Re-exported so session readers need not import the model layer for it. */
export type { AssistantMessage };
