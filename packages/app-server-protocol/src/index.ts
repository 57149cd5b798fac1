/**
 * @knightcode/app-server-protocol: the types of every message the app server speaks, the
 * JSON-lines codec, transports, run-time validators and a typed client. Importing it loads no
 * schema library, so it is cheap on a start-up path; the TypeBox schemas themselves are in
 * `@knightcode/app-server-protocol/schemas`.
 */

export {
  AppServerClient,
  ConnectionClosedError,
  isPayloadRef,
  type NotificationMeta,
} from "./client.ts";
export {
  type ConnectWebSocketOptions,
  connectWebSocket,
  type WebSocketConnection,
} from "./connect-websocket.ts";
export type {
  ArchiveConflictData,
  ConfigConflictData,
  InvalidParamsData,
  LineTooLongData,
  NothingToUndoData,
  OverloadedData,
  ThreadLockedElsewhereData,
  TurnMismatchData,
} from "./error-data.ts";
export {
  AppServerError,
  ERROR_CODES,
  type ErrorCode,
  isAppServerError,
  type ValidationIssue,
  type WireError,
} from "./errors.ts";
export {
  type ExtensionFlagArg,
  type ExtensionFlagType,
  flagArgText,
  type ResolvedFlagArgs,
  resolveFlagArgs,
} from "./extension-flag-args.ts";
export { createInMemoryTransportPair } from "./in-memory-transport.ts";
export { DEFAULT_MAX_LINE_BYTES, encodeLine, LineDecoder, type LineEvent } from "./jsonl.ts";
export {
  HISTORY_PAGE_TURNS,
  MAX_DECLINE_MESSAGE_CHARS,
  MAX_INLINE_VALUE_BYTES,
  MAX_LINE_BYTES,
  MAX_LISTING_RESPONSE_BYTES,
  MAX_OPT_OUT_NOTIFICATIONS,
  MAX_PENDING_OUTPUT_BYTES,
  MAX_SHELL_COMMAND_CHARS,
  PAYLOAD_CHUNK_BYTES,
  RESPONSE_ENVELOPE_RESERVE_BYTES,
  THREAD_LIST_MAX_LIMIT,
} from "./limits.ts";
export {
  classifyMessage,
  type ErrorResponse,
  type Message,
  type NotificationMessage,
  type RequestId,
  type RequestMessage,
  type ResponseMessage,
  type SuccessResponse,
} from "./messages.ts";
export {
  CLIENT_NOTIFICATION_METHODS,
  CLIENT_REQUEST_METHODS,
  type ClientRequestMethod,
  EXTENSION_DISPLAY_METHODS,
  isClientRequestMethod,
  isServerNotificationMethod,
  SERVER_NOTIFICATION_METHODS,
  SERVER_REQUEST_METHODS,
  type ServerNotificationMethod,
  type ServerRequestMethod,
} from "./method-names.ts";
export type {
  ClientRequestParams,
  ClientRequestResult,
  ExtensionDisplayNotification,
  ServerNotification,
  ServerNotificationParams,
  ServerRequestParams,
  ServerRequestResult,
} from "./method-types.ts";
export type {
  ConfigReadParams,
  ConfigReadResult,
  ConfigWriteParams,
  ConfigWriteResult,
  ProjectTrustReadParams,
  ProjectTrustReadResult,
  ProjectTrustSetParams,
  ProjectTrustSetResult,
} from "./methods/config.ts";
export type {
  ExtensionNotifyNotification,
  ExtensionRequestDialogParams,
  ExtensionRequestDialogResult,
  ExtensionStatusChangedNotification,
  ExtensionTitleChangedNotification,
  ExtensionWidgetChangedNotification,
  ExtensionWidgetPlacement,
  ExtensionWorkingIndicatorChangedNotification,
  ExtensionWorkingMessageChangedNotification,
  ExtensionWorkingVisibleChangedNotification,
} from "./methods/extension-ui.ts";
export type { InitializedNotification, InitializeParams, InitializeResult } from "./methods/handshake.ts";
export type {
  McpResourceContents,
  McpServerListParams,
  McpServerListResult,
  McpServerResourceReadParams,
  McpServerResourceReadResult,
} from "./methods/mcp.ts";
export type {
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
export type { ThreadShellRunParams, ThreadShellRunResult } from "./methods/shell.ts";
export type {
  CommandCompleteParams,
  CommandCompleteResult,
  CommandListParams,
  CommandListResult,
  ContextTool,
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
export type {
  ThreadTreeNavigateParams,
  ThreadTreeNavigateResult,
  ThreadTreeReadParams,
  ThreadTreeReadResult,
  TreeEntry,
} from "./methods/tree.ts";
export type {
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
export type {
  RestoredPath,
  ThreadUndoParams,
  ThreadUndoResult,
  UnrestoredPath,
} from "./methods/undo.ts";
export type {
  DiffFile,
  ThreadDiffParams,
  ThreadDiffResult,
  WorktreeEntry,
  WorktreeListParams,
  WorktreeListResult,
  WorktreeMergeParams,
  WorktreeMergeResult,
  WorktreeRemoveParams,
  WorktreeRemoveResult,
} from "./methods/worktrees.ts";
export type {
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
export {
  NO_NUL_PATTERN,
  NO_NUL_PATTERN_MESSAGE,
  PATH_PATTERN,
  PATH_PATTERN_MESSAGE,
} from "./path-pattern.ts";
export { ReconnectingTransport, type ReconnectingTransportOptions } from "./reconnecting-transport.ts";
export {
  BEARER_SUBPROTOCOL_PREFIX,
  bearerSubprotocols,
  isLoopbackHost,
  KNIGHTCODE_SUBPROTOCOL,
  offersKnightcodeSubprotocol,
  tokenFromSubprotocols,
} from "./remote-auth.ts";
export type {
  ApprovalPreview,
  ItemToolCallRequestApprovalParams,
  ItemToolCallRequestApprovalResult,
} from "./server-requests.ts";
export type {
  AccountStatus,
  AgentMessageItem,
  ApprovalDecision,
  ApprovalMode,
  Command,
  CommandArgument,
  CommandSource,
  CompactionItem,
  ErrorKind,
  ExtensionFlag,
  ExtensionItem,
  FileChange,
  FileMatch,
  ImageInput,
  InlineImage,
  McpHttpServerConfig,
  McpResourceInfo,
  McpResourceRef,
  McpResourceTemplateInfo,
  McpServerConfig,
  McpServerState,
  McpServerStatus,
  McpServers,
  McpStdioServerConfig,
  McpToolInfo,
  ModelRef,
  PayloadRef,
  ProtocolModel,
  QueueState,
  ReasoningItem,
  StreamPosition,
  StreamSeq,
  ThinkingLevel,
  Thread,
  ThreadItem,
  ThreadResources,
  ThreadSandbox,
  ThreadStatus,
  ThreadSummary,
  ThreadWorktree,
  TokenUsage,
  ToolCallItem,
  ToolCallStatus,
  Turn,
  TurnError,
  TurnStatus,
  UserMessageItem,
  Warning,
} from "./shapes.ts";
export { type ByteSink, StreamTransport, type StreamTransportOptions } from "./stream-transport.ts";
export { type Transport, TransportClosedError } from "./transport.ts";
export {
  type AjvErrorLike,
  toValidationIssues,
  type ValidationResult,
  validateClientNotificationParams,
  validateRequestParams,
  validateServerRequest,
} from "./validate.ts";
export {
  type TokenPresentation,
  WebSocketConnectError,
  WebSocketTransport,
  type WebSocketTransportOptions,
} from "./websocket-transport.ts";
