/**
 * Method names as plain lists, for code that needs the names without loading the
 * schemas (the server's start-up path). A test keeps them equal to the method tables.
 */

export const CLIENT_REQUEST_METHODS = [
  "initialize",
  "thread/start",
  "thread/resume",
  "thread/fork",
  "thread/read",
  "thread/list",
  "thread/unsubscribe",
  "thread/archive",
  "thread/unarchive",
  "thread/delete",
  "thread/settings/update",
  "thread/shell/run",
  "thread/undo",
  "thread/tree/read",
  "thread/tree/navigate",
  "thread/diff",
  "worktree/merge",
  "worktree/remove",
  "worktree/list",
  "model/list",
  "turn/start",
  "turn/steer",
  "turn/interrupt",
  "turn/queue/add",
  "turn/queue/remove",
  "payload/read",
  "config/read",
  "config/write",
  "project/trust/read",
  "project/trust/set",
  "file/search",
  "command/list",
  "command/complete",
  "thread/context/read",
  "mcpServer/list",
  "mcpServer/resource/read",
  "server/diagnostics",
  "account/read",
  "account/login/apiKey",
  "account/logout",
] as const;

export const CLIENT_NOTIFICATION_METHODS = ["initialized"] as const;

export const SERVER_NOTIFICATION_METHODS = [
  "thread/started",
  "thread/status/changed",
  "thread/replaced",
  "thread/deleted",
  "thread/turn/completed",
  "thread/tokenUsage/updated",
  "turn/started",
  "turn/completed",
  "turn/queue/updated",
  "turn/retrying",
  "turn/diff/updated",
  "item/started",
  "item/completed",
  "item/removed",
  "item/agentMessage/delta",
  "item/reasoning/delta",
  "thread/shell/output",
  "warning",
  "error",
  "serverRequest/cancelled",
  "account/updated",
  "extension/notify",
  "extension/statusChanged",
  "extension/widgetChanged",
  "extension/workingMessageChanged",
  "extension/workingIndicatorChanged",
  "extension/workingVisibleChanged",
  "extension/titleChanged",
] as const;

/**
 * The notifications that carry an extension's display state (everything it shows but
 * `extension/notify`, which is a moment): a thread keeps their latest values and replays
 * them to a subscriber with `capabilities.extensionDialogs`.
 */
export const EXTENSION_DISPLAY_METHODS = [
  "extension/statusChanged",
  "extension/widgetChanged",
  "extension/workingMessageChanged",
  "extension/workingIndicatorChanged",
  "extension/workingVisibleChanged",
  "extension/titleChanged",
] as const satisfies readonly (typeof SERVER_NOTIFICATION_METHODS)[number][];

export const SERVER_REQUEST_METHODS = ["item/toolCall/requestApproval", "extension/requestDialog"] as const;

export type ClientRequestMethod = (typeof CLIENT_REQUEST_METHODS)[number];
export type ServerNotificationMethod = (typeof SERVER_NOTIFICATION_METHODS)[number];
export type ServerRequestMethod = (typeof SERVER_REQUEST_METHODS)[number];

const clientRequestSet = new Set<string>(CLIENT_REQUEST_METHODS);
const serverNotificationSet = new Set<string>(SERVER_NOTIFICATION_METHODS);

/** True when `method` names a client request. */
export function isClientRequestMethod(method: string): method is ClientRequestMethod {
  return clientRequestSet.has(method);
}

/** True when `method` names a server notification. */
export function isServerNotificationMethod(method: string): method is ServerNotificationMethod {
  return serverNotificationSet.has(method);
}
