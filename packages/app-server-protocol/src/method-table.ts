/**
 * Every method name mapped to its schemas. The tables drive validation, the generated
 * JSON Schema and the typed client, so a method exists in exactly one place.
 */
import type { TSchema } from "typebox";
import {
  ConfigReadParams,
  ConfigReadResult,
  ConfigWriteParams,
  ConfigWriteResult,
  ProjectTrustReadParams,
  ProjectTrustReadResult,
  ProjectTrustSetParams,
  ProjectTrustSetResult,
} from "./methods/config.ts";
import {
  ExtensionNotifyNotification,
  ExtensionRequestDialogParams,
  ExtensionRequestDialogResult,
  ExtensionStatusChangedNotification,
  ExtensionTitleChangedNotification,
  ExtensionWidgetChangedNotification,
  ExtensionWorkingIndicatorChangedNotification,
  ExtensionWorkingMessageChangedNotification,
  ExtensionWorkingVisibleChangedNotification,
} from "./methods/extension-ui.ts";
import { InitializedNotification, InitializeParams, InitializeResult } from "./methods/handshake.ts";
import {
  McpServerListParams,
  McpServerListResult,
  McpServerResourceReadParams,
  McpServerResourceReadResult,
} from "./methods/mcp.ts";
import {
  AccountLoginApiKeyParams,
  AccountLoginApiKeyResult,
  AccountLogoutParams,
  AccountLogoutResult,
  AccountReadParams,
  AccountReadResult,
  FileSearchParams,
  FileSearchResult,
  PayloadReadParams,
  PayloadReadResult,
  ServerDiagnosticsParams,
  ServerDiagnosticsResult,
} from "./methods/server.ts";
import { ThreadShellRunParams, ThreadShellRunResult } from "./methods/shell.ts";
import {
  CommandCompleteParams,
  CommandCompleteResult,
  CommandListParams,
  CommandListResult,
  ModelListParams,
  ModelListResult,
  ThreadArchiveParams,
  ThreadArchiveResult,
  ThreadContextReadParams,
  ThreadContextReadResult,
  ThreadDeleteParams,
  ThreadDeleteResult,
  ThreadForkParams,
  ThreadForkResult,
  ThreadListParams,
  ThreadListResult,
  ThreadReadParams,
  ThreadReadResult,
  ThreadResumeParams,
  ThreadResumeResult,
  ThreadSettingsUpdateParams,
  ThreadSettingsUpdateResult,
  ThreadStartParams,
  ThreadStartResult,
  ThreadUnarchiveParams,
  ThreadUnarchiveResult,
  ThreadUnsubscribeParams,
  ThreadUnsubscribeResult,
} from "./methods/threads.ts";
import {
  ThreadTreeNavigateParams,
  ThreadTreeNavigateResult,
  ThreadTreeReadParams,
  ThreadTreeReadResult,
} from "./methods/tree.ts";
import {
  TurnInterruptParams,
  TurnInterruptResult,
  TurnQueueAddParams,
  TurnQueueAddResult,
  TurnQueueRemoveParams,
  TurnQueueRemoveResult,
  TurnStartParams,
  TurnStartResult,
  TurnSteerParams,
  TurnSteerResult,
} from "./methods/turns.ts";
import { ThreadUndoParams, ThreadUndoResult } from "./methods/undo.ts";
import {
  ThreadDiffParams,
  ThreadDiffResult,
  WorktreeListParams,
  WorktreeListResult,
  WorktreeMergeParams,
  WorktreeMergeResult,
  WorktreeRemoveParams,
  WorktreeRemoveResult,
} from "./methods/worktrees.ts";
import {
  AccountUpdatedNotification,
  ErrorNotification,
  ItemAgentMessageDeltaNotification,
  ItemCompletedNotification,
  ItemReasoningDeltaNotification,
  ItemRemovedNotification,
  ItemStartedNotification,
  ServerRequestCancelledNotification,
  ThreadDeletedNotification,
  ThreadReplacedNotification,
  ThreadShellOutputNotification,
  ThreadStartedNotification,
  ThreadStatusChangedNotification,
  ThreadTokenUsageUpdatedNotification,
  ThreadTurnCompletedNotification,
  TurnCompletedNotification,
  TurnDiffUpdatedNotification,
  TurnQueueUpdatedNotification,
  TurnRetryingNotification,
  TurnStartedNotification,
  WarningNotification,
} from "./notifications.ts";
import { ItemToolCallRequestApprovalParams, ItemToolCallRequestApprovalResult } from "./server-requests.ts";

/** Requests a client sends, with their params and result schemas. */
export const CLIENT_REQUESTS = {
  initialize: { params: InitializeParams, result: InitializeResult },
  "thread/start": { params: ThreadStartParams, result: ThreadStartResult },
  "thread/resume": { params: ThreadResumeParams, result: ThreadResumeResult },
  "thread/fork": { params: ThreadForkParams, result: ThreadForkResult },
  "thread/read": { params: ThreadReadParams, result: ThreadReadResult },
  "thread/list": { params: ThreadListParams, result: ThreadListResult },
  "thread/unsubscribe": { params: ThreadUnsubscribeParams, result: ThreadUnsubscribeResult },
  "thread/archive": { params: ThreadArchiveParams, result: ThreadArchiveResult },
  "thread/unarchive": { params: ThreadUnarchiveParams, result: ThreadUnarchiveResult },
  "thread/delete": { params: ThreadDeleteParams, result: ThreadDeleteResult },
  "thread/settings/update": { params: ThreadSettingsUpdateParams, result: ThreadSettingsUpdateResult },
  "thread/shell/run": { params: ThreadShellRunParams, result: ThreadShellRunResult },
  "thread/undo": { params: ThreadUndoParams, result: ThreadUndoResult },
  "thread/tree/read": { params: ThreadTreeReadParams, result: ThreadTreeReadResult },
  "thread/tree/navigate": { params: ThreadTreeNavigateParams, result: ThreadTreeNavigateResult },
  "thread/diff": { params: ThreadDiffParams, result: ThreadDiffResult },
  "worktree/merge": { params: WorktreeMergeParams, result: WorktreeMergeResult },
  "worktree/remove": { params: WorktreeRemoveParams, result: WorktreeRemoveResult },
  "worktree/list": { params: WorktreeListParams, result: WorktreeListResult },
  "model/list": { params: ModelListParams, result: ModelListResult },
  "turn/start": { params: TurnStartParams, result: TurnStartResult },
  "turn/steer": { params: TurnSteerParams, result: TurnSteerResult },
  "turn/interrupt": { params: TurnInterruptParams, result: TurnInterruptResult },
  "turn/queue/add": { params: TurnQueueAddParams, result: TurnQueueAddResult },
  "turn/queue/remove": { params: TurnQueueRemoveParams, result: TurnQueueRemoveResult },
  "payload/read": { params: PayloadReadParams, result: PayloadReadResult },
  "config/read": { params: ConfigReadParams, result: ConfigReadResult },
  "config/write": { params: ConfigWriteParams, result: ConfigWriteResult },
  "project/trust/read": { params: ProjectTrustReadParams, result: ProjectTrustReadResult },
  "project/trust/set": { params: ProjectTrustSetParams, result: ProjectTrustSetResult },
  "file/search": { params: FileSearchParams, result: FileSearchResult },
  "command/list": { params: CommandListParams, result: CommandListResult },
  "command/complete": { params: CommandCompleteParams, result: CommandCompleteResult },
  "thread/context/read": { params: ThreadContextReadParams, result: ThreadContextReadResult },
  "mcpServer/list": { params: McpServerListParams, result: McpServerListResult },
  "mcpServer/resource/read": { params: McpServerResourceReadParams, result: McpServerResourceReadResult },
  "server/diagnostics": { params: ServerDiagnosticsParams, result: ServerDiagnosticsResult },
  "account/read": { params: AccountReadParams, result: AccountReadResult },
  "account/login/apiKey": { params: AccountLoginApiKeyParams, result: AccountLoginApiKeyResult },
  "account/logout": { params: AccountLogoutParams, result: AccountLogoutResult },
} as const satisfies Record<string, { params: TSchema; result: TSchema }>;

/** Notifications a client sends. */
export const CLIENT_NOTIFICATIONS = {
  initialized: InitializedNotification,
} as const satisfies Record<string, TSchema>;

/** Notifications the server sends. */
export const SERVER_NOTIFICATIONS = {
  "thread/started": ThreadStartedNotification,
  "thread/status/changed": ThreadStatusChangedNotification,
  "thread/replaced": ThreadReplacedNotification,
  "thread/deleted": ThreadDeletedNotification,
  "thread/turn/completed": ThreadTurnCompletedNotification,
  "thread/tokenUsage/updated": ThreadTokenUsageUpdatedNotification,
  "turn/started": TurnStartedNotification,
  "turn/completed": TurnCompletedNotification,
  "turn/queue/updated": TurnQueueUpdatedNotification,
  "turn/retrying": TurnRetryingNotification,
  "turn/diff/updated": TurnDiffUpdatedNotification,
  "item/started": ItemStartedNotification,
  "item/completed": ItemCompletedNotification,
  "item/removed": ItemRemovedNotification,
  "item/agentMessage/delta": ItemAgentMessageDeltaNotification,
  "item/reasoning/delta": ItemReasoningDeltaNotification,
  "thread/shell/output": ThreadShellOutputNotification,
  warning: WarningNotification,
  error: ErrorNotification,
  "serverRequest/cancelled": ServerRequestCancelledNotification,
  "account/updated": AccountUpdatedNotification,
  "extension/notify": ExtensionNotifyNotification,
  "extension/statusChanged": ExtensionStatusChangedNotification,
  "extension/widgetChanged": ExtensionWidgetChangedNotification,
  "extension/workingMessageChanged": ExtensionWorkingMessageChangedNotification,
  "extension/workingIndicatorChanged": ExtensionWorkingIndicatorChangedNotification,
  "extension/workingVisibleChanged": ExtensionWorkingVisibleChangedNotification,
  "extension/titleChanged": ExtensionTitleChangedNotification,
} as const satisfies Record<string, TSchema>;

/** Requests the server sends to a client. */
export const SERVER_REQUESTS = {
  "item/toolCall/requestApproval": {
    params: ItemToolCallRequestApprovalParams,
    result: ItemToolCallRequestApprovalResult,
  },
  "extension/requestDialog": {
    params: ExtensionRequestDialogParams,
    result: ExtensionRequestDialogResult,
  },
} as const satisfies Record<string, { params: TSchema; result: TSchema }>;
