/** Thread lifecycle methods. */
import Type, { type Static } from "typebox";
import { THREAD_LIST_MAX_LIMIT } from "../limits.ts";
import {
  ApprovalMode,
  Command,
  ExtensionFlag,
  McpServers,
  ModelRef,
  PathString,
  PayloadRef,
  ProtocolModel,
  QueueState,
  StreamPosition,
  StreamSeq,
  ThinkingLevel,
  Thread,
  ThreadResources,
  ThreadSummary,
  TokenUsage,
  Turn,
  Warning,
} from "../shapes.ts";

const ThreadId = Type.String({ minLength: 1, maxLength: 256 });
const Cursor = Type.String({ minLength: 1, maxLength: 4096 });

export const ThreadStartParams = Type.Object({
  cwd: PathString,
  approvalMode: Type.Optional(ApprovalMode),
  model: Type.Optional(ModelRef),
  thinkingLevel: Type.Optional(ThinkingLevel),
  name: Type.Optional(Type.String({ maxLength: 512 })),
  /** MCP servers for this thread only (an ACP editor's), over same-named settings servers. */
  mcpServers: Type.Optional(McpServers),
  /**
   * Work in a new server-owned git worktree of the repository containing `cwd`, on the
   * branch `knightcode/<name>` from `baseRef` (default `HEAD`); the thread's cwd is the
   * same folder inside it.
   */
  worktree: Type.Optional(
    Type.Object({
      name: Type.Optional(Type.String({ pattern: "^[a-z0-9][a-z0-9-]{0,63}$" })),
      baseRef: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    }),
  ),
});
export type ThreadStartParams = Static<typeof ThreadStartParams>;

/** The flags the thread's extensions registered; absent when they registered none. */
const ExtensionFlags = Type.Optional(Type.Array(ExtensionFlag));

/** The new subscriber's place in the thread's stream, for a later `thread/resume` with `replay`. */
const Stream = Type.Optional(StreamPosition);

export const ThreadStartResult = Type.Object({
  thread: Thread,
  warnings: Type.Array(Warning),
  extensionFlags: ExtensionFlags,
  stream: Stream,
  /** What making the thread's worktree found and did. */
  worktreeStart: Type.Optional(
    Type.Object({
      /** The main checkout had uncommitted changes; the worktree starts from the commit without them. */
      sourceDirty: Type.Boolean(),
      /** Repository paths copied in through `.knightcode/worktreeinclude`. */
      copied: Type.Array(Type.String()),
    }),
  ),
  resources: Type.Optional(ThreadResources),
});
export type ThreadStartResult = Static<typeof ThreadStartResult>;

export const ThreadResumeParams = Type.Object({
  threadId: ThreadId,
  cursor: Type.Optional(Cursor),
  /** Replaces the thread's client-given MCP servers (see `thread/start`); absent keeps them. */
  mcpServers: Type.Optional(McpServers),
  /**
   * A reconnecting client's last place in the thread's stream: the notifications after
   * `afterSeq` are sent again, before the response, when the stream is the same and its
   * replay buffer still holds them (`replay: "replayed"`); otherwise the snapshot is the
   * state to install (`replay: "gone"`).
   */
  replay: Type.Optional(
    Type.Object({ streamId: Type.String({ minLength: 1, maxLength: 64 }), afterSeq: StreamSeq }),
  ),
});
export type ThreadResumeParams = Static<typeof ThreadResumeParams>;

/** A history page: at most 50 turns, newest page first, chronological within the page. */
const HistoryPage = {
  thread: Thread,
  turns: Type.Array(Type.Union([Turn, PayloadRef])),
  nextCursor: Type.Optional(Type.String()),
};

export const ThreadResumeResult = Type.Object({
  ...HistoryPage,
  /** The turn running at send time, if any, regardless of the cursor. */
  runningTurn: Type.Optional(Turn),
  queue: QueueState,
  usage: TokenUsage,
  warnings: Type.Array(Warning),
  extensionFlags: ExtensionFlags,
  stream: Stream,
  /** Only when `replay` was asked: whether the gap was sent again or is gone. */
  replay: Type.Optional(Type.Union([Type.Literal("replayed"), Type.Literal("gone")])),
  resources: Type.Optional(ThreadResources),
});
export type ThreadResumeResult = Static<typeof ThreadResumeResult>;

export const ThreadForkParams = Type.Object({
  threadId: ThreadId,
  name: Type.Optional(Type.String({ maxLength: 512 })),
  /** MCP servers for the fork only (see `thread/start`). */
  mcpServers: Type.Optional(McpServers),
});
export type ThreadForkParams = Static<typeof ThreadForkParams>;

export const ThreadForkResult = Type.Object({
  thread: Thread,
  warnings: Type.Array(Warning),
  extensionFlags: ExtensionFlags,
  stream: Stream,
  resources: Type.Optional(ThreadResources),
});
export type ThreadForkResult = Static<typeof ThreadForkResult>;

export const ThreadReadParams = Type.Object({
  threadId: ThreadId,
  cursor: Type.Optional(Cursor),
  /**
   * Read the branch that ends at this entry (any `thread/tree/read` entry) instead of the
   * current one, e.g. to show or edit a message of another branch; the leaf stays.
   */
  leafId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
});
export type ThreadReadParams = Static<typeof ThreadReadParams>;

export const ThreadReadResult = Type.Object({
  ...HistoryPage,
  /** What reading a damaged transcript skipped or repaired; absent when nothing was. */
  warnings: Type.Optional(Type.Array(Warning)),
});
export type ThreadReadResult = Static<typeof ThreadReadResult>;

export const ThreadListParams = Type.Object({
  cursor: Type.Optional(Cursor),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: THREAD_LIST_MAX_LIMIT })),
  archived: Type.Optional(Type.Boolean()),
  cwd: Type.Optional(PathString),
});
export type ThreadListParams = Static<typeof ThreadListParams>;

export const ThreadListResult = Type.Object({
  threads: Type.Array(ThreadSummary),
  nextCursor: Type.Optional(Type.String()),
});
export type ThreadListResult = Static<typeof ThreadListResult>;

export const ThreadUnsubscribeParams = Type.Object({ threadId: ThreadId });
export type ThreadUnsubscribeParams = Static<typeof ThreadUnsubscribeParams>;

export const ThreadUnsubscribeResult = Type.Object({
  status: Type.Union([Type.Literal("unsubscribed"), Type.Literal("notSubscribed")]),
});
export type ThreadUnsubscribeResult = Static<typeof ThreadUnsubscribeResult>;

export const ThreadArchiveParams = Type.Object({ threadId: ThreadId });
export type ThreadArchiveParams = Static<typeof ThreadArchiveParams>;
export const ThreadArchiveResult = Type.Object({});
export type ThreadArchiveResult = Static<typeof ThreadArchiveResult>;

export const ThreadUnarchiveParams = Type.Object({ threadId: ThreadId });
export type ThreadUnarchiveParams = Static<typeof ThreadUnarchiveParams>;
export const ThreadUnarchiveResult = Type.Object({});
export type ThreadUnarchiveResult = Static<typeof ThreadUnarchiveResult>;

export const ThreadDeleteParams = Type.Object({ threadId: ThreadId });
export type ThreadDeleteParams = Static<typeof ThreadDeleteParams>;
export const ThreadDeleteResult = Type.Object({});
export type ThreadDeleteResult = Static<typeof ThreadDeleteResult>;

export const ThreadSettingsUpdateParams = Type.Object({
  threadId: ThreadId,
  model: Type.Optional(ModelRef),
  thinkingLevel: Type.Optional(ThinkingLevel),
  approvalMode: Type.Optional(ApprovalMode),
});
export type ThreadSettingsUpdateParams = Static<typeof ThreadSettingsUpdateParams>;

export const ThreadSettingsUpdateResult = Type.Object({ thread: Thread });
export type ThreadSettingsUpdateResult = Static<typeof ThreadSettingsUpdateResult>;

export const ModelListParams = Type.Object({ threadId: Type.Optional(ThreadId) });
export type ModelListParams = Static<typeof ModelListParams>;

export const ModelListResult = Type.Object({ models: Type.Array(ProtocolModel) });
export type ModelListResult = Static<typeof ModelListResult>;

export const ThreadContextReadParams = Type.Object({ threadId: ThreadId });
export type ThreadContextReadParams = Static<typeof ThreadContextReadParams>;

/** A tool as the model is offered it. */
export const ContextTool = Type.Object({
  name: Type.String(),
  description: Type.String(),
  /** The tool's JSON Schema. */
  parameters: Type.Unknown(),
});
export type ContextTool = Static<typeof ContextTool>;

/**
 * What the next model request of a loaded thread would be sent besides the messages: the
 * system prompt as the thread builds it (before any extension's `before_agent_start`
 * changes it) and the tools on offer, extension and MCP tools included.
 */
export const ThreadContextReadResult = Type.Object({
  systemPrompt: Type.String(),
  tools: Type.Array(ContextTool),
});
export type ThreadContextReadResult = Static<typeof ThreadContextReadResult>;

export const CommandListParams = Type.Union([
  Type.Object({ threadId: ThreadId }),
  Type.Object({ cwd: PathString }),
]);
export type CommandListParams = Static<typeof CommandListParams>;

export const CommandListResult = Type.Object({ commands: Type.Array(Command) });
export type CommandListResult = Static<typeof CommandListResult>;

/** The text of a slash command up to the cursor, whose last (partial) word is completed. */
export const CommandCompleteParams = Type.Object({
  threadId: Type.String({ minLength: 1, maxLength: 256 }),
  text: Type.String({ minLength: 1, maxLength: 8192 }),
});
export type CommandCompleteParams = Static<typeof CommandCompleteParams>;

export const CommandCompleteResult = Type.Object({
  /** The argument the last word fills; absent when it fills none. */
  argument: Type.Optional(Type.String()),
  /** The end of `text` each value replaces (the partial word, `name=` included). */
  prefix: Type.String(),
  /** Whole words to put in its place, quoted where they hold spaces. */
  values: Type.Array(Type.String()),
  /** The server has more values than it sent. */
  hasMore: Type.Boolean(),
});
export type CommandCompleteResult = Static<typeof CommandCompleteResult>;
