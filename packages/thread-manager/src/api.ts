/**
 * The ThreadManager's public contract: what the app server (and embedders through
 * `createInProcessClient`) call, and the event stream the server delivers.
 *
 * Every method takes the protocol's params type and resolves with the protocol's result
 * type for the method of the same name; failures reject with `AppServerError` carrying
 * the spec's exact code. Values are returned whole: turning large values into payload
 * references and bounding response sizes is the app server's job, at serialization.
 */

import type {
  AppServerError,
  CommandCompleteParams,
  CommandCompleteResult,
  CommandListParams,
  CommandListResult,
  ExtensionRequestDialogParams,
  ExtensionRequestDialogResult,
  ItemToolCallRequestApprovalParams,
  ItemToolCallRequestApprovalResult,
  McpServerListParams,
  McpServerListResult,
  McpServerResourceReadParams,
  McpServerResourceReadResult,
  ModelListParams,
  ModelListResult,
  ServerNotification,
  ThreadArchiveParams,
  ThreadArchiveResult,
  ThreadContextReadParams,
  ThreadContextReadResult,
  ThreadDeleteParams,
  ThreadDeleteResult,
  ThreadDiffParams,
  ThreadDiffResult,
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
  ThreadShellRunParams,
  ThreadShellRunResult,
  ThreadStartParams,
  ThreadStartResult,
  ThreadTreeNavigateParams,
  ThreadTreeNavigateResult,
  ThreadTreeReadParams,
  ThreadTreeReadResult,
  ThreadUnarchiveParams,
  ThreadUnarchiveResult,
  ThreadUndoParams,
  ThreadUndoResult,
  ThreadUnsubscribeParams,
  ThreadUnsubscribeResult,
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
  WorktreeListParams,
  WorktreeListResult,
  WorktreeMergeParams,
  WorktreeMergeResult,
  WorktreeRemoveParams,
  WorktreeRemoveResult,
} from "@knightcode/app-server-protocol";
import type { LiveComponentSurface } from "@knightcode/extensions";

/** Who is calling: one protocol connection. */
export interface Caller {
  /** Stable for the connection's life; subscriptions and approvals are keyed by it. */
  connectionId: string;
  /** Terminal in-process callers default new threads to `fullAccess`, desktop callers to `ask`. */
  clientKind: "desktop" | "terminal";
}

/**
 * One notification and who gets it. The manager resolves audiences (it owns
 * subscriptions); the server only delivers, honouring each connection's opt-outs.
 */
export type ThreadManagerEvent =
  | { audience: "everyone"; notification: ServerNotification; seq?: number }
  | { audience: "connections"; connectionIds: string[]; notification: ServerNotification; seq?: number };

/** A server-to-client request in flight. */
export interface OutgoingRequest<TResult> {
  /** Settles with the client's answer; rejects with `AppServerError` when the client answers an error or the connection closes. */
  response: Promise<TResult>;
  /** Withdraws the request; the server sends `serverRequest/cancelled` to that connection. */
  cancel(): void;
}

/** How the manager asks one connection a question (approvals) and how full its output is. Provided by the server. */
export interface ServerRequestPort {
  requestApproval(
    connectionId: string,
    params: ItemToolCallRequestApprovalParams,
  ): OutgoingRequest<ItemToolCallRequestApprovalResult>;
  /** Asks one connection an extension's dialog (`extension/requestDialog`). */
  requestExtensionDialog?(
    connectionId: string,
    params: ExtensionRequestDialogParams,
  ): OutgoingRequest<ExtensionRequestDialogResult>;
  /** Whether the connection declared `capabilities.extensionDialogs` in `initialize`. */
  showsExtensionDialogs?(connectionId: string): boolean;
  /**
   * The live component surface of a same-process client (the terminal agent), which draws
   * extensions' pi-tui components itself; undefined for every other connection.
   */
  componentSurface?(connectionId: string): LiveComponentSurface | undefined;
  /**
   * Backpressure: undefined while every one of these connections keeps up with its output,
   * else a promise that settles once they have caught up. A streaming turn awaits it
   * between model events, so a slow reader slows the model's stream instead of queueing
   * output without bound.
   */
  outputReady?(connectionIds: readonly string[]): Promise<void> | undefined;
}

/** Counters for `server/diagnostics` that only the manager knows. */
export interface ThreadManagerDiagnostics {
  loadedThreads: number;
  loadingThreads: number;
  inactiveFactories: number;
  listingFilesOpened: number;
  listingBytesScanned: number;
}

/** The runtime behind every thread/turn/model/command method of the protocol. */
export interface ThreadManagerApi {
  startThread(params: ThreadStartParams, caller: Caller): Promise<ThreadStartResult>;
  resumeThread(params: ThreadResumeParams, caller: Caller): Promise<ThreadResumeResult>;
  forkThread(params: ThreadForkParams, caller: Caller): Promise<ThreadForkResult>;
  readThread(params: ThreadReadParams, caller: Caller): Promise<ThreadReadResult>;
  listThreads(params: ThreadListParams, caller: Caller): Promise<ThreadListResult>;
  unsubscribe(params: ThreadUnsubscribeParams, caller: Caller): Promise<ThreadUnsubscribeResult>;
  archiveThread(params: ThreadArchiveParams, caller: Caller): Promise<ThreadArchiveResult>;
  unarchiveThread(params: ThreadUnarchiveParams, caller: Caller): Promise<ThreadUnarchiveResult>;
  deleteThread(params: ThreadDeleteParams, caller: Caller): Promise<ThreadDeleteResult>;
  updateSettings(params: ThreadSettingsUpdateParams, caller: Caller): Promise<ThreadSettingsUpdateResult>;
  listModels(params: ModelListParams, caller: Caller): Promise<ModelListResult>;
  listCommands(params: CommandListParams, caller: Caller): Promise<CommandListResult>;
  /** `command/complete`: values for the argument an MCP prompt command's last word fills (loads the thread). */
  completeCommand(params: CommandCompleteParams, caller: Caller): Promise<CommandCompleteResult>;
  /** `thread/context/read`: the system prompt and tools a loaded thread's next turn would send. */
  readContext(params: ThreadContextReadParams, caller: Caller): Promise<ThreadContextReadResult>;
  listMcpServers(params: McpServerListParams, caller: Caller): Promise<McpServerListResult>;
  /** `mcpServer/resource/read`: one resource of one of a thread's MCP servers (loads the thread). */
  readMcpResource(params: McpServerResourceReadParams, caller: Caller): Promise<McpServerResourceReadResult>;

  startTurn(params: TurnStartParams, caller: Caller): Promise<TurnStartResult>;
  steerTurn(params: TurnSteerParams, caller: Caller): Promise<TurnSteerResult>;
  interruptTurn(params: TurnInterruptParams, caller: Caller): Promise<TurnInterruptResult>;
  addToQueue(params: TurnQueueAddParams, caller: Caller): Promise<TurnQueueAddResult>;
  removeFromQueue(params: TurnQueueRemoveParams, caller: Caller): Promise<TurnQueueRemoveResult>;
  /** `thread/tree/read`: conversation entries of every branch and the current leaf. */
  readTree(params: ThreadTreeReadParams, caller: Caller): Promise<ThreadTreeReadResult>;
  /** `thread/tree/navigate`: continue the thread from another entry. */
  navigateTree(params: ThreadTreeNavigateParams, caller: Caller): Promise<ThreadTreeNavigateResult>;
  /** `thread/shell/run`: the user's own command through the thread's bash tool. */
  runShell(params: ThreadShellRunParams, caller: Caller): Promise<ThreadShellRunResult>;
  /** `thread/diff`: the thread's working files against its turn start, base or remote. */
  diffThread(params: ThreadDiffParams, caller: Caller): Promise<ThreadDiffResult>;
  /** `worktree/merge`: the thread's worktree branch into its source branch. */
  mergeWorktree(params: WorktreeMergeParams, caller: Caller): Promise<WorktreeMergeResult>;
  /** `worktree/remove`: the thread's worktree, after a snapshot ref. */
  removeWorktree(params: WorktreeRemoveParams, caller: Caller): Promise<WorktreeRemoveResult>;
  /** `worktree/list`: the worktrees the server owns. */
  listWorktrees(params: WorktreeListParams, caller: Caller): Promise<WorktreeListResult>;
  /** `thread/undo`: the files the thread's last turn changed, put back from its checkpoint. */
  undoTurn(params: ThreadUndoParams, caller: Caller): Promise<ThreadUndoResult>;

  /** The server hands the manager its way to ask clients (approvals); called once at server creation. */
  attachServerRequests(port: ServerRequestPort): void;
  /** Subscribes to every event; returns the unsubscribe function. */
  onEvent(listener: (event: ThreadManagerEvent) => void): () => void;
  /**
   * Drops the connection's subscriptions and migrates or cancels its open approvals.
   * `keepPendingRequests`: the client may come back (a listener's connection); approvals
   * and dialogs nobody else can answer wait for the thread's next subscriber.
   */
  connectionClosed(connectionId: string, options?: { keepPendingRequests?: boolean }): void;
  diagnostics(): ThreadManagerDiagnostics;
  /** Interrupts running work, unloads every thread and releases every lock. */
  closeAll(): Promise<void>;
}

export type { AppServerError };
