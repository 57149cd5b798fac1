/**
 * The ThreadManager: the facade behind every thread/turn/model/command method. It routes
 * each method to the part that owns its concern (`manager-wiring.ts` builds them): reads
 * and lookups (`threads/thread-reads.ts`), creation (`threads/thread-creation.ts`), the
 * registry of loaded threads, archive, listings, the session tree, and the turn methods,
 * which load with the first turn (`turns/lazy-turns.ts`), not with the manager.
 */
import type {
  ThreadForkParams,
  ThreadForkResult,
  ThreadResumeParams,
  ThreadResumeResult,
  ThreadStartParams,
  ThreadStartResult,
} from "@knightcode/app-server-protocol";
import type {
  Caller,
  ServerRequestPort,
  ThreadManagerApi,
  ThreadManagerDiagnostics,
  ThreadManagerEvent,
} from "./api.ts";
import type { Clock } from "./clock.ts";
import { completePromptCommand } from "./commands/mcp-prompt-completion.ts";
import { askBeforeFork } from "./extensions/session-move-hooks.ts";
import { navigateSessionTree, readSessionTree } from "./history/session-tree.ts";
import type { ThreadManagerOptions } from "./manager-options.ts";
import { closeAll, connectionClosed, type ManagerParts, wireManager } from "./manager-wiring.ts";
import type { ModelSource } from "./threads/model-source.ts";
import { toProtocolModel } from "./threads/model-source.ts";
import { commandList, mcpServerList } from "./threads/project-listings.ts";
import { applySettingsUpdate } from "./threads/settings-update.ts";
import { worktreeStarts } from "./threads/thread-creation.ts";
import { extensionFlagsOf, notFound } from "./threads/thread-reads.ts";
import { threadResources } from "./threads/thread-resources.ts";
import type { ThreadRuntime } from "./threads/thread-runtime.ts";
import { readMcpResource } from "./tools/mcp-resources.ts";
import { wire } from "./wire-errors.ts";
import { changedFiles } from "./worktrees/worktree-settings.ts";

export type { ThreadManagerOptions };

/** Creates a ThreadManager. */
export function createThreadManager(options: ThreadManagerOptions = {}): ThreadManager {
  return new ThreadManager(options);
}

/** The runtime behind every thread/turn/model/command method of the protocol. */
export class ThreadManager implements ThreadManagerApi {
  readonly clock: Clock;
  readonly models: ModelSource;
  /** MCP server processes, shared by threads with the same server config and cwd. */
  readonly mcpHub: ManagerParts["mcpHub"];
  private readonly parts: ManagerParts;
  private readonly listeners = new Set<(event: ThreadManagerEvent) => void>();
  /** Whether a thread has answered yet: the first one starts loading the turn methods. */
  private turnsPreloaded = false;
  private port: ServerRequestPort | undefined;

  constructor(readonly options: ThreadManagerOptions) {
    this.parts = wireManager(options, { port: () => this.port, emit: (event) => this.emit(event) });
    this.clock = this.parts.clock;
    this.models = this.parts.models;
    this.mcpHub = this.parts.mcpHub;
    // after start-up, off its path: prune what git says is gone, remove clean merged worktrees beyond worktrees.keep, name stale ones
    setTimeout(() => {
      this.parts.worktrees
        .sweep((line) => process.stderr.write(`${line}\n`))
        .catch((error: unknown) =>
          process.stderr.write(`[worktrees] start-up sweep failed: ${String(error)}\n`),
        );
    }, 0).unref();
  }

  private emit(event: ThreadManagerEvent): void {
    const { notification } = event;
    if (notification.method === "item/completed" && changedFiles(notification.params.item))
      this.parts.diffs.changed(notification.params.threadId, notification.params.turnId);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        process.stderr.write(`[thread-manager] event listener failed: ${(error as Error).message}\n`);
      }
    }
  }

  /**
   * Passes a thread's answer on, then (once) loads the turn methods in the background, so
   * the prompt that usually follows finds them ready. On timers, not in a microtask: the
   * answer is written before module evaluation holds the thread.
   */
  private thenPreloadTurns<T>(answer: Promise<T>): Promise<T> {
    return answer.then((result) => {
      if (!this.turnsPreloaded) {
        this.turnsPreloaded = true;
        this.parts.turns.preload();
      }
      return result;
    });
  }

  /** Subscribes the creator of a new thread and answers with the thread, its warnings and resources. */
  private async created(runtime: ThreadRuntime, caller: Caller): Promise<ThreadStartResult> {
    const resources = await threadResources(runtime, this.parts.ctx.agentDir);
    runtime.subscribe(caller.connectionId);
    runtime.noteInitiator(caller.connectionId);
    const worktreeStart = worktreeStarts.get(runtime);
    return {
      thread: runtime.thread(),
      warnings: runtime.loadWarnings,
      ...extensionFlagsOf(runtime),
      stream: runtime.replay.position(),
      ...(worktreeStart ? { worktreeStart } : {}),
      resources,
    };
  }

  startThread(params: ThreadStartParams, caller: Caller): Promise<ThreadStartResult> {
    return this.thenPreloadTurns(
      wire(async () => this.created(await this.parts.creation.start(params, caller), caller)),
    );
  }

  forkThread(params: ThreadForkParams, caller: Caller): Promise<ThreadForkResult> {
    const { registry, reads, creation } = this.parts;
    return this.thenPreloadTurns(
      wire(async () => {
        registry.refuseWhileClosing();
        const { session, runtime } = await reads.forkSource(params.threadId, caller);
        if (runtime) await askBeforeFork(runtime);
        return this.created(await creation.fork(session, caller, params.name, params.mcpServers), caller);
      }),
    );
  }

  resumeThread(params: ThreadResumeParams, caller: Caller): Promise<ThreadResumeResult> {
    return this.thenPreloadTurns(wire(() => this.parts.reads.resume(params, caller)));
  }

  readThread: ThreadManagerApi["readThread"] = (params) => wire(() => this.parts.reads.read(params));
  listThreads: ThreadManagerApi["listThreads"] = (params, caller) =>
    wire(() => this.parts.reads.list(params, caller));

  unsubscribe: ThreadManagerApi["unsubscribe"] = (params, caller) =>
    wire(async () => {
      const removed = this.parts.registry.threads.get(params.threadId)?.unsubscribe(caller.connectionId);
      return { status: removed ? "unsubscribed" : "notSubscribed" };
    });

  /** Archive methods act on a located transcript, loaded or not. */
  private located<T>(threadId: string, act: () => Promise<T>): Promise<T> {
    return wire(async () => {
      await this.parts.reads.locate(threadId);
      return act();
    });
  }

  archiveThread: ThreadManagerApi["archiveThread"] = ({ threadId }) =>
    this.located(threadId, () => this.parts.archive.move(threadId, "archive"));
  unarchiveThread: ThreadManagerApi["unarchiveThread"] = ({ threadId }) =>
    this.located(threadId, () => this.parts.archive.move(threadId, "unarchive"));
  deleteThread: ThreadManagerApi["deleteThread"] = ({ threadId }) =>
    this.located(threadId, () => this.parts.archive.delete(threadId));

  updateSettings: ThreadManagerApi["updateSettings"] = (params, caller) =>
    wire(async () => {
      const runtime = await this.parts.reads.load(params.threadId, caller);
      await applySettingsUpdate(runtime, params, this.models);
      return { thread: runtime.thread() };
    });

  listModels: ThreadManagerApi["listModels"] = () =>
    wire(async () => {
      const models = await this.models.list();
      return {
        models: await Promise.all(
          models.map(async (m) => toProtocolModel(m, await this.models.available(m))),
        ),
      };
    });

  listCommands: ThreadManagerApi["listCommands"] = (params) => wire(() => commandList(this.parts, params));
  completeCommand: ThreadManagerApi["completeCommand"] = (params, caller) =>
    wire(async () => {
      const runtime = await this.parts.reads.load(params.threadId, caller);
      return completePromptCommand((await runtime.mcp?.servers.promptCommands()) ?? [], params.text);
    });
  listMcpServers: ThreadManagerApi["listMcpServers"] = (params) =>
    wire(() => mcpServerList(this.parts, params));
  readMcpResource: ThreadManagerApi["readMcpResource"] = (params, caller) =>
    wire(async () => {
      const runtime = await this.parts.reads.load(params.threadId, caller);
      return readMcpResource(runtime.mcp, { server: params.server, uri: params.uri });
    });

  readContext: ThreadManagerApi["readContext"] = (params) =>
    wire(() => this.parts.turns.use((turns) => turns.context(params)));
  /**
   * Input for a thread (a turn, a queued input, a `!command`, whatever then handles it)
   * makes it used: a new thread's transcript is written before the input is looked at.
   */
  private received(threadId: string): void {
    const session = this.parts.registry.threads.get(threadId)?.session;
    if (session !== undefined && !session.written) session.write();
  }

  startTurn: ThreadManagerApi["startTurn"] = (params, caller) =>
    wire(() => {
      this.received(params.threadId);
      return this.parts.turns.use((turns) => turns.start(params, caller));
    });
  steerTurn: ThreadManagerApi["steerTurn"] = (params, caller) =>
    wire(() => this.parts.turns.use((turns) => turns.steer(params, caller)));
  interruptTurn: ThreadManagerApi["interruptTurn"] = (params, caller) =>
    wire(() => this.parts.turns.use((turns) => turns.interrupt(params, caller)));
  addToQueue: ThreadManagerApi["addToQueue"] = (params, caller) =>
    wire(() => {
      this.received(params.threadId);
      return this.parts.turns.use((turns) => turns.queueAdd(params, caller));
    });
  removeFromQueue: ThreadManagerApi["removeFromQueue"] = (params, caller) =>
    wire(() => this.parts.turns.use((turns) => turns.queueRemove(params, caller)));
  diffThread: ThreadManagerApi["diffThread"] = (params) => wire(() => this.parts.worktrees.diff(params));
  mergeWorktree: ThreadManagerApi["mergeWorktree"] = (params) =>
    wire(() => this.parts.worktrees.merge(params));
  removeWorktree: ThreadManagerApi["removeWorktree"] = (params) =>
    wire(() => this.parts.worktrees.remove(params));
  listWorktrees: ThreadManagerApi["listWorktrees"] = (params) =>
    wire(() => this.parts.worktrees.list(params));
  runShell: ThreadManagerApi["runShell"] = (params, caller) =>
    wire(() => {
      this.received(params.threadId);
      return this.parts.turns.use((turns) => turns.shell(params, caller));
    });
  undoTurn: ThreadManagerApi["undoTurn"] = (params, caller) =>
    wire(() => this.parts.turns.use((turns) => turns.undo(params, caller)));
  readTree: ThreadManagerApi["readTree"] = (params) =>
    wire(async () => readSessionTree((await this.parts.reads.sourceSession(params.threadId)).session));
  navigateTree: ThreadManagerApi["navigateTree"] = (params, caller) =>
    wire(async () => {
      const runtime = await this.parts.reads.load(params.threadId, caller);
      runtime.subscribe(caller.connectionId);
      return navigateSessionTree(runtime, this.parts.compaction, params);
    });

  attachServerRequests(port: ServerRequestPort): void {
    this.port = port;
  }

  onEvent(listener: (event: ThreadManagerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  connectionClosed(connectionId: string, options?: { keepPendingRequests?: boolean }): void {
    connectionClosed(this.parts, connectionId, options?.keepPendingRequests === true);
  }

  /**
   * Reloads a loaded thread's extensions, as `/reload` does (for embedders); refuses with
   * `turnInProgress` while the thread is busy and `threadNotFound` when it is not loaded.
   */
  async reloadExtensions(threadId: string): Promise<void> {
    const runtime = this.parts.registry.threads.get(threadId);
    if (!runtime) throw notFound(threadId);
    runtime.admit("command");
    try {
      await this.parts.registry.reloadExtensions(runtime);
    } finally {
      if (!runtime.closed) runtime.release();
    }
  }

  diagnostics(): ThreadManagerDiagnostics {
    const { registry, reads } = this.parts;
    return {
      loadedThreads: registry.threads.size,
      loadingThreads: registry.loading.size,
      inactiveFactories: this.options.extensionHostFactory?.inactiveFactories?.() ?? 0,
      listingFilesOpened: reads.lister.counters.filesOpened,
      listingBytesScanned: reads.lister.counters.bytesScanned,
    };
  }

  closeAll(): Promise<void> {
    return closeAll(this.parts);
  }

  /** Test and embedder hook: the loaded runtime of a thread, if any. */
  loadedThread(threadId: string): ThreadRuntime | undefined {
    return this.parts.registry.threads.get(threadId);
  }
}
