/** Server-to-client notifications (params shapes). */
import Type, { type Static } from "typebox";
import {
  AccountStatus,
  PayloadRef,
  QueueState,
  Thread,
  ThreadItem,
  ThreadStatus,
  TokenUsage,
  Turn,
  Warning,
} from "./shapes.ts";

const ThreadId = Type.String();
const ItemOrRef = Type.Union([ThreadItem, PayloadRef]);

export const ThreadStartedNotification = Type.Object({ thread: Thread });
export type ThreadStartedNotification = Static<typeof ThreadStartedNotification>;

export const ThreadStatusChangedNotification = Type.Object({ threadId: ThreadId, status: ThreadStatus });
export type ThreadStatusChangedNotification = Static<typeof ThreadStatusChangedNotification>;

/** Subscriptions move from the old thread to the new one. */
export const ThreadReplacedNotification = Type.Object({ oldThreadId: ThreadId, thread: Thread });
export type ThreadReplacedNotification = Static<typeof ThreadReplacedNotification>;

export const ThreadDeletedNotification = Type.Object({ threadId: ThreadId });
export type ThreadDeletedNotification = Static<typeof ThreadDeletedNotification>;

/** To every initialized connection: a turn finished (completed, failed or interrupted). */
export const ThreadTurnCompletedNotification = Type.Object({ threadId: ThreadId, turn: Turn });
export type ThreadTurnCompletedNotification = Static<typeof ThreadTurnCompletedNotification>;

export const ThreadTokenUsageUpdatedNotification = Type.Object({
  threadId: ThreadId,
  turnId: Type.String(),
  usage: TokenUsage,
});
export type ThreadTokenUsageUpdatedNotification = Static<typeof ThreadTokenUsageUpdatedNotification>;

export const TurnStartedNotification = Type.Object({
  threadId: ThreadId,
  turn: Turn,
  requestId: Type.Optional(Type.String()),
});
export type TurnStartedNotification = Static<typeof TurnStartedNotification>;

export const TurnCompletedNotification = Type.Object({ threadId: ThreadId, turn: Turn });
export type TurnCompletedNotification = Static<typeof TurnCompletedNotification>;

export const TurnQueueUpdatedNotification = Type.Object({ threadId: ThreadId, ...QueueState.properties });
export type TurnQueueUpdatedNotification = Static<typeof TurnQueueUpdatedNotification>;

/**
 * A model request of the running turn failed transiently (a connection error, a rate
 * limit, an overloaded server) and will be tried again after `delayMs`; `attempt` is the
 * 1-based number of the retry about to happen, of at most `maxRetries`.
 */
export const TurnRetryingNotification = Type.Object({
  threadId: ThreadId,
  turnId: Type.String(),
  attempt: Type.Integer({ minimum: 1 }),
  maxRetries: Type.Integer({ minimum: 1 }),
  delayMs: Type.Integer({ minimum: 0 }),
  /** What failed, as the provider said it. */
  message: Type.String(),
});
export type TurnRetryingNotification = Static<typeof TurnRetryingNotification>;

export const ItemStartedNotification = Type.Object({
  threadId: ThreadId,
  turnId: Type.String(),
  item: ItemOrRef,
});
export type ItemStartedNotification = Static<typeof ItemStartedNotification>;

export const ItemCompletedNotification = Type.Object({
  threadId: ThreadId,
  turnId: Type.String(),
  item: ItemOrRef,
});
export type ItemCompletedNotification = Static<typeof ItemCompletedNotification>;

export const ItemRemovedNotification = Type.Object({
  threadId: ThreadId,
  turnId: Type.String(),
  itemId: Type.String(),
});
export type ItemRemovedNotification = Static<typeof ItemRemovedNotification>;

const Delta = Type.Object({
  threadId: ThreadId,
  turnId: Type.String(),
  itemId: Type.String(),
  delta: Type.String(),
});

export const ItemAgentMessageDeltaNotification = Delta;
export type ItemAgentMessageDeltaNotification = Static<typeof ItemAgentMessageDeltaNotification>;

export const ItemReasoningDeltaNotification = Delta;
export type ItemReasoningDeltaNotification = Static<typeof ItemReasoningDeltaNotification>;

/**
 * The unified diff of everything the running turn changed so far, against the turn's
 * start, after its file changes (coalesced: a few per second at most; the last one
 * follows the turn's last change). A large diff goes out as a payload reference.
 */
export const TurnDiffUpdatedNotification = Type.Object({
  threadId: ThreadId,
  turnId: Type.String(),
  diff: Type.String(),
});
export type TurnDiffUpdatedNotification = Static<typeof TurnDiffUpdatedNotification>;

/** Output so far of a running `thread/shell/run`, to the thread's subscribers. */
export const ThreadShellOutputNotification = Type.Object({
  threadId: ThreadId,
  shellId: Type.Optional(Type.String()),
  output: Type.String(),
});
export type ThreadShellOutputNotification = Static<typeof ThreadShellOutputNotification>;

/** A warning; with `threadId` it went to that thread's subscribers only. */
export const WarningNotification = Type.Object({ ...Warning.properties, threadId: Type.Optional(ThreadId) });
export type WarningNotification = Static<typeof WarningNotification>;

/** Something failed outside a request: a dropped line, a lost lock, a queued input that could not start. */
export const ErrorNotification = Type.Object({
  message: Type.String(),
  code: Type.Optional(Type.String()),
  threadId: Type.Optional(ThreadId),
  data: Type.Optional(Type.Unknown()),
});
export type ErrorNotification = Static<typeof ErrorNotification>;

/** Withdraws an outstanding server request; `requestId` is its JSON `id`. */
export const ServerRequestCancelledNotification = Type.Object({
  threadId: Type.Optional(ThreadId),
  requestId: Type.Union([Type.String(), Type.Number()]),
});
export type ServerRequestCancelledNotification = Static<typeof ServerRequestCancelledNotification>;

export const AccountUpdatedNotification = Type.Object({ accounts: Type.Array(AccountStatus) });
export type AccountUpdatedNotification = Static<typeof AccountUpdatedNotification>;
