/**
 * The ThreadManager: loads and owns threads, admits turns, routes approvals, unloads
 * idle threads, and turns everything into protocol notifications with their audience.
 * Thread methods live here; creation is `thread-creation.ts`, turn methods delegate to
 * `turn-operations.ts`, and the turn environment is built in `turn-environment.ts`; both
 * load with the first turn (`lazy-turns.ts`), not with the manager.
 */
import { type Model, streamModel } from "@knightcode/ai";
import {
  AppServerError,
  type CommandListParams,
  type CommandListResult,
  type ExtensionFlag,
  type McpServerListParams,
  type McpServerListResult,
  type ModelListResult,
  type ModelRef,
  type ThreadArchiveParams,
  type ThreadDeleteParams,
  type ThreadForkParams,
  type ThreadForkResult,
  type ThreadListParams,
  type ThreadListResult,
  type ThreadReadParams,
  type ThreadReadResult,
  type ThreadResumeParams,
  type ThreadResumeResult,
  type ThreadSettingsUpdateParams,
  type ThreadSettingsUpdateResult,
  type ThreadStartParams,
  type ThreadStartResult,
  type ThreadSummary,
  type ThreadUnarchiveParams,
  type ThreadUnsubscribeParams,
  type ThreadUnsubscribeResult,
} from "@knightcode/app-server-protocol";
import { configuredMcpServers, resolveAgentDir } from "@knightcode/config";
// the hub and the server specs, not the tool adapter (it loads with the first MCP tools)
import { McpHub } from "@knightcode/mcp/mcp-hub";
import { serverStatus, threadServerSpecs } from "@knightcode/mcp/thread-servers";
import { type SessionFile, SessionFile as SessionFiles, ThreadLister } from "@knightcode/session-store";
import type {
  Caller,
  ServerRequestPort,
  ThreadManagerApi,
  ThreadManagerDiagnostics,
  ThreadManagerEvent,
} from "./api.ts";
import { type Clock, systemClock } from "./clock.ts";
import { listCommands, projectCommandSources, runtimeCommandSources } from "./commands/commands.ts";
import { type DialogBroker, dialogChannel } from "./extensions/extension-dialogs.ts";
import type { ExtensionTurnActions } from "./extensions/extension-port.ts";
import { askBeforeFork } from "./extensions/session-move-hooks.ts";
import { type HistoryTurns, historyTurns } from "./history/history-read.ts";
import { PAGE_FIELDS_RESERVE_BYTES, sentRunningTurnBytes, turnBudget } from "./history/response-budget.ts";
import { navigateSessionTree, readSessionTree } from "./history/session-tree.ts";
import type { ThreadManagerOptions } from "./manager-options.ts";
import type { ThreadPort } from "./thread-port.ts";
import {
  type ModelSource,
  registryModelSource,
  toProtocolModel,
  warmingModelSource,
} from "./threads/model-source.ts";
import { replayGap } from "./threads/replay-buffer.ts";
import { SessionDirectories } from "./threads/session-dirs.ts";
import { type LocatedSession, SessionLocator } from "./threads/session-locator.ts";
import { sessionDamageWarnings } from "./threads/session-warnings.ts";
import { applySettingsUpdate } from "./threads/settings-update.ts";
import { ArchiveOperations } from "./threads/thread-archive.ts";
import { ThreadCreation } from "./threads/thread-creation.ts";
import { type LoaderContext, readProjectSettings, requireDirectory } from "./threads/thread-loader.ts";
import { ThreadRegistry } from "./threads/thread-registry.ts";
import { runtimeOf, type ThreadRuntime } from "./threads/thread-runtime.ts";
import { summaryOf, unloadedThread } from "./threads/thread-views.ts";
import { threadToolBackendFactory } from "./tools/tool-backend.ts";
import { type ApprovalBroker, approvalChannel, RequestBroker } from "./turns/approval-broker.ts";
import { createCompactionWiring } from "./turns/compaction-wiring.ts";
import type { CompactionHooks } from "./turns/environment.ts";
import { LazyTurns } from "./turns/lazy-turns.ts";
import { abortTurns, turnSettled } from "./turns/turn-abort.ts";
import { wire } from "./wire-errors.ts";

export type { ThreadManagerOptions };

/** Creates a ThreadManager. */
export function createThreadManager(options: ThreadManagerOptions = {}): ThreadManager {
  return new ThreadManager(options);
}

const notFound = (threadId: string) => new AppServerError("threadNotFound", `Thread ${threadId} not found`);

/** The `extensionFlags` of a start, fork or resume result: present when an extension registered one. */
function extensionFlagsOf(runtime: ThreadRuntime): { extensionFlags?: ExtensionFlag[] } {
  const flags = runtime.extensions.flags?.() ?? [];
  return flags.length === 0 ? {} : { extensionFlags: flags };
}

/** The runtime behind every thread/turn/model/command method of the protocol. */
export class ThreadManager implements ThreadManagerApi {
  readonly clock: Clock;
  readonly models: ModelSource;
  private readonly ctx: LoaderContext;
  private readonly listeners = new Set<(event: ThreadManagerEvent) => void>();
  private readonly registry: ThreadRegistry;
  private readonly lister = new ThreadLister();
  private readonly dirs: SessionDirectories;
  private readonly locator: SessionLocator;
  private readonly broker: ApprovalBroker;
  private readonly dialogs: DialogBroker;
  private readonly creation: ThreadCreation;
  /** The turn methods, loaded with the first request that runs a turn. */
  private readonly turns: LazyTurns;
  /** Whether a thread has answered yet: the first one starts loading the turn methods. */
  private turnsPreloaded = false;
  /** Compaction at turns' check points; also usage reports' context size and tree navigation's summaries. */
  private readonly compaction: CompactionHooks;
  private readonly archive: ArchiveOperations;
  private port: ServerRequestPort | undefined;
  /** MCP server processes, shared by threads with the same server config and cwd. */
  readonly mcpHub: McpHub;

  constructor(readonly options: ThreadManagerOptions) {
    const env = options.env ?? process.env;
    this.mcpHub = options.mcpHub ?? new McpHub({ env });
    this.ctx = { agentDir: options.agentDir ?? resolveAgentDir(env), sessionDir: options.sessionDir, env };
    this.clock = options.clock ?? systemClock;
    this.models = warmingModelSource(options.models ?? registryModelSource(this.ctx.agentDir, env));
    this.dirs = new SessionDirectories(this.ctx);
    this.locator = new SessionLocator(() => this.dirs.roots());
    this.broker = new RequestBroker(
      () => this.port,
      (threadId) => this.registry.threads.get(threadId)?.publishStatus(),
      approvalChannel,
    );
    this.dialogs = new RequestBroker(
      () => this.port,
      () => {},
      dialogChannel,
    );
    this.registry = new ThreadRegistry({
      ctx: this.ctx,
      clock: this.clock,
      locator: this.locator,
      broker: this.broker,
      dialogs: this.dialogs,
      serverRequests: () => this.port,
      emit: (event) => this.emit(event),
      ...(options.replayLimits === undefined ? {} : { replayLimits: options.replayLimits }),
      resolveModel: (ref) => this.resolveModel(ref),
      abortAll: (runtime) => abortTurns(runtime),
      models: this.models,
      extensionActions: this.extensionActions(),
      outputReady: (connectionIds) => this.port?.outputReady?.(connectionIds),
      ...(options.extensionHostFactory ? { extensionHostFactory: options.extensionHostFactory } : {}),
      toolBackend: threadToolBackendFactory({
        ...options,
        env: options.toolEnv,
        hiddenDirs: () => [
          this.ctx.agentDir,
          ...(this.ctx.sessionDir === undefined ? [] : [this.ctx.sessionDir]),
          ...this.dirs.roots(),
        ],
      }),
      ...(options.extensionPaths ? { extensionPaths: options.extensionPaths } : {}),
      ...(options.extensionFlags ? { extensionFlags: options.extensionFlags } : {}),
      ...(options.idleUnloadMs !== undefined ? { idleUnloadMs: options.idleUnloadMs } : {}),
      mcpHub: this.mcpHub,
      ...(options.toolSources ? { toolSources: options.toolSources } : {}),
    });
    this.creation = new ThreadCreation({
      ctx: this.ctx,
      dirs: this.dirs,
      registry: this.registry,
      models: this.models,
      emit: (event) => this.emit(event),
    });
    const streamFn = options.streamFn ?? streamModel;
    this.compaction =
      options.compaction ??
      createCompactionWiring(streamFn, async (runtime) =>
        runtime.model ? this.models.getApiKey(runtime.model) : undefined,
      );
    this.archive = this.createArchiveOperations();
    this.turns = new LazyTurns(async () => {
      const { createTurnOperations } = await import("./turns/turn-machinery.ts");
      return createTurnOperations(
        options,
        {
          agentDir: this.ctx.agentDir,
          models: this.models,
          streamFn,
          compaction: this.compaction,
          now: () => this.clock.now(),
        },
        {
          runtime: async (threadId, caller) => {
            if (!this.registry.threads.has(threadId)) await this.locate(threadId);
            return this.registry.load(threadId, caller);
          },
          loaded: (threadId) => this.registry.threads.get(threadId),
          exists: async (threadId) => (await this.locate(threadId)) !== undefined,
          resolveModel: (ref) => this.resolveModel(ref),
          reloadExtensions: (thread) => this.registry.reloadExtensions(runtimeOf(thread)),
          replaced: (thread, reason) =>
            this.registry.reloadExtensions(runtimeOf(thread), { shutdown: reason, start: "resume" }),
        },
        this.creation,
      );
    }, [
      () => import("@knightcode/approvals"),
      () => import("@knightcode/agent"),
      // not the turn methods' own graph: the rest of compaction, which a first prompt's check loads
      () => import("@knightcode/compaction"),
    ]);
  }

  /**
   * After the first thread has answered (start, resume or fork), loads the turn methods in
   * the background, so the prompt that usually follows finds them ready. On timers, not
   * in a microtask: the answer is written before module evaluation holds the thread.
   */
  private preloadTurns(): void {
    if (this.turnsPreloaded) return;
    this.turnsPreloaded = true;
    this.turns.preload();
  }

  /** What extension APIs do to turns, through the same operations the protocol uses. */
  private extensionActions(): ExtensionTurnActions {
    const callerOf = (thread: ThreadPort): Caller => {
      const runtime = runtimeOf(thread);
      const connectionId = runtime.subscribers.at(-1);
      if (connectionId === undefined) throw new Error("No client is subscribed to this thread");
      return { connectionId, clientKind: runtime.clientMode };
    };
    return {
      queueInput: async (runtime, text, images) => {
        const params = {
          threadId: runtime.id,
          text,
          ...(images.length > 0
            ? { images: images.map((i) => ({ mimeType: i.mimeType as "image/png", data: i.data })) }
            : {}),
        };
        const caller = callerOf(runtime);
        await this.turns.use((turns) => turns.queueAdd(params, caller));
      },
      steer: (runtime, text, images) => runtime.running?.steer(text, images),
      interrupt: (runtime) => abortTurns(runtime),
      compact: async (runtime, instructions) => {
        const params = { threadId: runtime.id, text: instructions ? `/compact ${instructions}` : "/compact" };
        const caller = callerOf(runtime);
        await this.turns.use((turns) => turns.start(params, caller));
      },
      contextTokens: (runtime) => this.compaction.contextTokens(runtime),
    };
  }

  private createArchiveOperations(): ArchiveOperations {
    return new ArchiveOperations({
      loaded: (id) => this.registry.threads.get(id),
      isLoading: (id) => this.registry.loading.has(id),
      locator: this.locator,
      deleting: this.registry.deleting,
      unload: (runtime) => this.registry.unload(runtime),
      deleted: (id) => {
        this.registry.systemErrors.delete(id);
        this.toEveryone({ method: "thread/deleted", params: { threadId: id } });
      },
    });
  }

  /** Finds a transcript; on a miss, re-reads the session-dir settings and searches again. */
  private async locate(threadId: string): Promise<LocatedSession | undefined> {
    if (this.registry.threads.has(threadId)) return this.locator.find(threadId);
    const found = this.locator.find(threadId);
    if (found) return found;
    await this.dirs.refresh();
    return this.locator.find(threadId);
  }

  private emit(event: ThreadManagerEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        process.stderr.write(`[thread-manager] event listener failed: ${(error as Error).message}\n`);
      }
    }
  }

  private toEveryone(notification: ThreadManagerEvent["notification"]): void {
    this.emit({ audience: "everyone", notification });
  }

  private async resolveModel(ref: ModelRef | undefined): Promise<Model | undefined> {
    if (ref) return this.models.find(ref);
    return undefined;
  }

  /** A loaded thread's session, else the transcript opened read-only (no lock, no write). */
  private async sourceSession(threadId: string): Promise<{ session: SessionFile; archived: boolean }> {
    const loaded = this.registry.threads.get(threadId);
    if (loaded) return { session: loaded.session, archived: false };
    const found = await this.locate(threadId);
    if (!found) throw notFound(threadId);
    return { session: await SessionFiles.openReadOnly(found.path), archived: found.archived };
  }

  /** Subscribes the creator of a new thread and answers with the thread and its warnings. */
  private created(runtime: ThreadRuntime, caller: Caller): ThreadStartResult {
    runtime.subscribe(caller.connectionId);
    runtime.noteInitiator(caller.connectionId);
    return {
      thread: runtime.thread(),
      warnings: runtime.loadWarnings,
      ...extensionFlagsOf(runtime),
      stream: runtime.replay.position(),
    };
  }

  startThread(params: ThreadStartParams, caller: Caller): Promise<ThreadStartResult> {
    return this.thenPreloadTurns(
      wire(async () => this.created(await this.creation.start(params, caller), caller)),
    );
  }

  /** Passes a thread's answer on, then starts loading the turn methods (once). */
  private thenPreloadTurns<T>(answer: Promise<T>): Promise<T> {
    return answer.then((result) => {
      this.preloadTurns();
      return result;
    });
  }

  forkThread(params: ThreadForkParams, caller: Caller): Promise<ThreadForkResult> {
    return this.thenPreloadTurns(this.fork(params, caller));
  }

  private fork(params: ThreadForkParams, caller: Caller): Promise<ThreadForkResult> {
    return wire(async () => {
      this.registry.refuseWhileClosing();
      const { session, runtime } = await this.forkSource(params.threadId, caller);
      if (runtime) await askBeforeFork(runtime);
      return this.created(await this.creation.fork(session, caller, params.name, params.mcpServers), caller);
    });
  }

  /**
   * The session a fork copies, with the loaded thread whose extensions are asked first
   * (`session_before_fork`). An unloaded source whose discovery finds an extension is
   * loaded for that, as `thread/resume` would load it but subscribing nobody (it idles
   * out like any loaded thread), so a guard cannot be bypassed by forking a thread that
   * is not loaded. With nothing to discover the transcript is only read: no lock, no
   * load, no notification. A source another process owns cannot be loaded here and is
   * copied read-only, as before; its owner's extensions run in that process and are
   * not asked (docs/pi-compatibility.md).
   */
  private async forkSource(
    threadId: string,
    caller: Caller,
  ): Promise<{ session: SessionFile; runtime?: ThreadRuntime }> {
    const loaded = this.registry.threads.get(threadId);
    if (loaded) return { session: loaded.session, runtime: loaded };
    const { session } = await this.sourceSession(threadId);
    if (!(await this.registry.findsExtensions(session, caller.clientKind))) return { session };
    try {
      const runtime = await this.registry.load(threadId, caller);
      return { session: runtime.session, runtime };
    } catch (error) {
      if ((error as { code?: unknown }).code === "threadLockedElsewhere") return { session };
      throw error;
    }
  }

  resumeThread(params: ThreadResumeParams, caller: Caller): Promise<ThreadResumeResult> {
    return this.thenPreloadTurns(this.resume(params, caller));
  }

  private resume(params: ThreadResumeParams, caller: Caller): Promise<ThreadResumeResult> {
    return wire(async () => {
      await this.locate(params.threadId);
      const runtime = await this.registry.load(params.threadId, caller, params.mcpServers);
      // Resuming a thread already loaded with other client servers switches to the new ones.
      const mcpWarnings =
        params.mcpServers !== undefined && runtime.mcp && runtime.mcp.clientServers !== params.mcpServers
          ? await runtime.mcp.setClientServers(params.mcpServers)
          : [];
      runtime.assertOpen();
      // From here to the return nothing awaits: history, snapshots and the subscription share one send step.
      const result: Omit<ThreadResumeResult, "turns"> = {
        thread: runtime.thread(),
        queue: runtime.queueState(),
        usage: runtime.usage(this.compaction.contextTokens(runtime)),
        warnings: [...runtime.loadWarnings, ...mcpWarnings],
        ...extensionFlagsOf(runtime),
      };
      const running = runtime.running?.live.snapshot();
      let page: HistoryTurns;
      try {
        const budget = turnBudget(
          result,
          PAGE_FIELDS_RESERVE_BYTES + (running ? sentRunningTurnBytes(running) : 0),
        );
        page = historyTurns(runtime.session, runtime.running?.live, params.cursor, budget);
      } catch (error) {
        this.registry.maybeIdle(runtime);
        throw error;
      }
      // a reconnecting client gets what it missed first, in order, before anything live
      const replay = replayGap(runtime.replay, params.replay, (entry) =>
        this.emit({
          audience: "connections",
          connectionIds: [caller.connectionId],
          notification: entry.notification,
          seq: entry.seq,
        }),
      );
      runtime.subscribe(caller.connectionId);
      const out: ThreadResumeResult = { ...result, turns: page.turns, stream: runtime.replay.position() };
      if (replay !== undefined) out.replay = replay;
      if (page.nextCursor !== undefined) out.nextCursor = page.nextCursor;
      if (running) out.runningTurn = running;
      return out;
    });
  }

  readThread(params: ThreadReadParams, _caller: Caller): Promise<ThreadReadResult> {
    return wire(async () => {
      const loaded = this.registry.threads.get(params.threadId);
      const { session, archived } = await this.sourceSession(params.threadId);
      const thread = loaded
        ? loaded.thread()
        : unloadedThread(session, archived, this.registry.statusOf(session.id));
      const leafId = params.leafId ?? session.leafId;
      if (leafId !== null && session.getEntry(leafId) === undefined) {
        throw new AppServerError("invalidParams", `Thread ${params.threadId} has no entry ${leafId}`);
      }
      // the running turn's live snapshot belongs to the current branch only
      const live = leafId === session.leafId ? loaded?.running?.live : undefined;
      const budget = turnBudget({ thread }, PAGE_FIELDS_RESERVE_BYTES);
      const { turns, nextCursor } = historyTurns(session, live, params.cursor, budget, leafId);
      const result: ThreadReadResult =
        nextCursor !== undefined ? { thread, turns, nextCursor } : { thread, turns };
      const warnings = sessionDamageWarnings(session);
      if (warnings.length > 0) result.warnings = warnings;
      return result;
    });
  }

  listThreads(params: ThreadListParams, caller: Caller): Promise<ThreadListResult> {
    return wire(async () => {
      const page = await this.lister.list({
        dirs: await this.dirs.listingDirs(caller, params.cwd),
        ...(params.archived !== undefined ? { archived: params.archived } : {}),
        ...(params.cwd !== undefined ? { cwd: params.cwd } : {}),
        ...(params.limit !== undefined ? { limit: params.limit } : {}),
        ...(params.cursor !== undefined ? { cursor: params.cursor } : {}),
      });
      const threads: ThreadSummary[] = page.threads.map((s) => summaryOf(s, this.registry.statusOf(s.id)));
      return page.nextCursor !== undefined ? { threads, nextCursor: page.nextCursor } : { threads };
    });
  }

  unsubscribe(params: ThreadUnsubscribeParams, caller: Caller): Promise<ThreadUnsubscribeResult> {
    return wire(async () => {
      const runtime = this.registry.threads.get(params.threadId);
      const removed = runtime?.unsubscribe(caller.connectionId) ?? false;
      return { status: removed ? "unsubscribed" : "notSubscribed" };
    });
  }

  archiveThread(params: ThreadArchiveParams, _caller: Caller): Promise<Record<string, never>> {
    return wire(async () => {
      await this.locate(params.threadId);
      return this.archive.move(params.threadId, "archive");
    });
  }

  unarchiveThread(params: ThreadUnarchiveParams, _caller: Caller): Promise<Record<string, never>> {
    return wire(async () => {
      await this.locate(params.threadId);
      return this.archive.move(params.threadId, "unarchive");
    });
  }

  deleteThread(params: ThreadDeleteParams, _caller: Caller): Promise<Record<string, never>> {
    return wire(async () => {
      await this.locate(params.threadId);
      return this.archive.delete(params.threadId);
    });
  }

  updateSettings(params: ThreadSettingsUpdateParams, caller: Caller): Promise<ThreadSettingsUpdateResult> {
    return wire(async () => {
      await this.locate(params.threadId);
      const runtime = await this.registry.load(params.threadId, caller);
      await applySettingsUpdate(runtime, params, this.models);
      return { thread: runtime.thread() };
    });
  }

  listModels(_params: unknown, _caller: Caller): Promise<ModelListResult> {
    return wire(async () => {
      const models = await this.models.list();
      return {
        models: await Promise.all(
          models.map(async (m) => toProtocolModel(m, await this.models.available(m))),
        ),
      };
    });
  }

  listCommands(params: CommandListParams, _caller: Caller): Promise<CommandListResult> {
    return wire(async () => {
      const agentDir = this.ctx.agentDir;
      if ("threadId" in params) {
        const runtime = this.registry.threads.get(params.threadId);
        if (runtime) {
          return {
            commands: await listCommands(
              runtimeCommandSources(agentDir, runtime),
              runtime.extensions.commands,
              (await runtime.mcp?.servers.promptCommands()) ?? [],
            ),
          };
        }
        const { session } = await this.sourceSession(params.threadId);
        return {
          commands: await listCommands(await projectCommandSources(this.ctx, session.header.cwd), []),
        };
      }
      await requireDirectory(params.cwd);
      return { commands: await listCommands(await projectCommandSources(this.ctx, params.cwd), []) };
    });
  }

  listMcpServers(params: McpServerListParams, _caller: Caller): Promise<McpServerListResult> {
    return wire(async () => {
      if ("threadId" in params) {
        const runtime = this.registry.threads.get(params.threadId);
        if (runtime?.mcp) return { servers: runtime.mcp.servers.status() };
        const { session } = await this.sourceSession(params.threadId);
        return { servers: await this.configuredServerStatus(session.header.cwd) };
      }
      await requireDirectory(params.cwd);
      return { servers: await this.configuredServerStatus(params.cwd) };
    });
  }

  /** What a new thread in `cwd` would run, with the state of any server a loaded thread shares. */
  private async configuredServerStatus(cwd: string): Promise<McpServerListResult["servers"]> {
    const project = await readProjectSettings(this.ctx, cwd);
    const specs = threadServerSpecs(
      configuredMcpServers(project.globalSettings, project.projectSettings),
      {},
      [],
    );
    return specs.map((spec) => serverStatus(spec, this.mcpHub.find(spec.name, spec.config, cwd)));
  }

  readContext: ThreadManagerApi["readContext"] = (params) =>
    wire(() => this.turns.use((turns) => turns.context(params)));
  startTurn: ThreadManagerApi["startTurn"] = (params, caller) =>
    wire(() => this.turns.use((turns) => turns.start(params, caller)));
  steerTurn: ThreadManagerApi["steerTurn"] = (params, caller) =>
    wire(() => this.turns.use((turns) => turns.steer(params, caller)));
  interruptTurn: ThreadManagerApi["interruptTurn"] = (params, caller) =>
    wire(() => this.turns.use((turns) => turns.interrupt(params, caller)));
  addToQueue: ThreadManagerApi["addToQueue"] = (params, caller) =>
    wire(() => this.turns.use((turns) => turns.queueAdd(params, caller)));
  removeFromQueue: ThreadManagerApi["removeFromQueue"] = (params, caller) =>
    wire(() => this.turns.use((turns) => turns.queueRemove(params, caller)));
  readTree: ThreadManagerApi["readTree"] = (params) =>
    wire(async () => readSessionTree((await this.sourceSession(params.threadId)).session));
  navigateTree: ThreadManagerApi["navigateTree"] = (params, caller) =>
    wire(async () => {
      await this.locate(params.threadId);
      const runtime = await this.registry.load(params.threadId, caller);
      runtime.subscribe(caller.connectionId);
      return navigateSessionTree(runtime, this.compaction, params);
    });
  runShell: ThreadManagerApi["runShell"] = (params, caller) =>
    wire(() => this.turns.use((turns) => turns.shell(params, caller)));

  attachServerRequests(port: ServerRequestPort): void {
    this.port = port;
  }

  onEvent(listener: (event: ThreadManagerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  connectionClosed(connectionId: string, options?: { keepPendingRequests?: boolean }): void {
    for (const runtime of this.registry.threads.values()) {
      const at = runtime.subscribers.indexOf(connectionId);
      if (at >= 0) {
        runtime.subscribers.splice(at, 1);
        this.registry.maybeIdle(runtime);
      }
    }
    const keep = options?.keepPendingRequests === true ? { keepPending: true } : {};
    this.broker.note({ type: "disconnected", connectionId, ...keep });
    this.dialogs.note({ type: "disconnected", connectionId, ...keep });
  }

  /**
   * Reloads a loaded thread's extensions, as `/reload` does (for embedders); refuses with
   * `turnInProgress` while the thread is busy and `threadNotFound` when it is not loaded.
   */
  async reloadExtensions(threadId: string): Promise<void> {
    const runtime = this.registry.threads.get(threadId);
    if (!runtime) throw notFound(threadId);
    runtime.admit("command");
    try {
      await this.registry.reloadExtensions(runtime);
    } finally {
      if (!runtime.closed) runtime.release();
    }
  }

  diagnostics(): ThreadManagerDiagnostics {
    return {
      loadedThreads: this.registry.threads.size,
      loadingThreads: this.registry.loading.size,
      inactiveFactories: this.options.extensionHostFactory?.inactiveFactories?.() ?? 0,
      listingFilesOpened: this.lister.counters.filesOpened,
      listingBytesScanned: this.lister.counters.bytesScanned,
    };
  }

  async closeAll(): Promise<void> {
    this.registry.closing = true;
    // First, so loads waiting on a server's start (up to its timeout) finish now.
    const serversStopped = this.mcpHub.closeAll();
    await Promise.allSettled([...this.registry.loading.values()]);
    const runtimes = [...this.registry.threads.values()];
    for (const runtime of runtimes) abortTurns(runtime);
    await Promise.allSettled(runtimes.map((r) => turnSettled(r)));
    for (const runtime of runtimes) await this.registry.unload(runtime);
    await serversStopped;
  }

  /** Test and embedder hook: the loaded runtime of a thread, if any. */
  loadedThread(threadId: string): ThreadRuntime | undefined {
    return this.registry.threads.get(threadId);
  }
}
