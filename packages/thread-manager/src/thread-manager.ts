/**
 * The ThreadManager: loads and owns threads, admits turns, routes approvals, unloads
 * idle threads, and turns everything into protocol notifications with their audience.
 * Thread lifecycle methods live here; turn methods delegate to `turn-runner.ts`.
 */
import { type AnyAgentTool, createBuiltinTools } from "@knightcode/agent";
import { type Model, type StreamFunction, streamModel } from "@knightcode/ai";
import {
  AppServerError,
  type CommandListParams,
  type CommandListResult,
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
  type ThreadUnarchiveParams,
  type ThreadUnsubscribeParams,
  type ThreadUnsubscribeResult,
} from "@knightcode/app-server-protocol";
import { defaultApprovalMode } from "@knightcode/approvals";
import { resolveAgentDir } from "@knightcode/config";
import {
  projectSessionDirs,
  type SessionFile,
  SessionFile as SessionFiles,
  sessionsRoot,
  ThreadLister,
} from "@knightcode/session-store";
import type {
  Caller,
  ServerRequestPort,
  ThreadManagerApi,
  ThreadManagerDiagnostics,
  ThreadManagerEvent,
} from "./api.ts";
import { ApprovalBroker } from "./approval-broker.ts";
import { type Clock, systemClock } from "./clock.ts";
import { listCommands } from "./commands.ts";
import { createCompactionWiring } from "./compaction-wiring.ts";
import type { ExtensionHostFactory } from "./extension-hooks.ts";
import { type HistoryTurns, historyTurns } from "./history-read.ts";
import { type ModelSource, registryModelSource, toProtocolModel } from "./model-source.ts";
import { createForkSession, createThreadSession } from "./session-creation.ts";
import { SessionLocator } from "./session-locator.ts";
import { applySettingsUpdate } from "./settings-update.ts";
import { threadSystemPrompt } from "./system-prompt.ts";
import { ArchiveOperations } from "./thread-archive.ts";
import { type LoaderContext, newSessionDir, readProjectSettings, requireDirectory } from "./thread-loader.ts";
import { ThreadRegistry } from "./thread-registry.ts";
import type { ThreadRuntime } from "./thread-runtime.ts";
import { summaryOf, unloadedThread } from "./thread-views.ts";
import { TurnOperations } from "./turn-operations.ts";
import type { CompactionHooks, TurnEnvironment } from "./turn-runner.ts";
import { wire } from "./wire-errors.ts";

/** How a ThreadManager is built; every field has a production default. */
export interface ThreadManagerOptions {
  /** Defaults to `KNIGHTCODE_CODING_AGENT_DIR`, else `~/.knightcode/agent`. */
  agentDir?: string;
  /** `--session-dir`: one flat directory for every thread. */
  sessionDir?: string;
  /** `-e` extension paths, loaded in each thread as explicitly trusted. */
  extensionPaths?: string[];
  env?: Record<string, string | undefined>;
  /** Time source for idle unloading and turn markers. */
  clock?: Clock;
  idleUnloadMs?: number;
  models?: ModelSource;
  streamFn?: StreamFunction;
  /** The tools each thread's agent gets. */
  tools?: (cwd: string) => AnyAgentTool[];
  systemPrompt?: (cwd: string) => Promise<string | undefined>;
  extensionHostFactory?: ExtensionHostFactory;
  compaction?: CompactionHooks;
}

/** Creates a ThreadManager. */
export function createThreadManager(options: ThreadManagerOptions = {}): ThreadManager {
  return new ThreadManager(options);
}

/** The runtime behind every thread/turn/model/command method of the protocol. */
export class ThreadManager implements ThreadManagerApi {
  readonly clock: Clock;
  readonly models: ModelSource;
  private readonly ctx: LoaderContext;
  private readonly listeners = new Set<(event: ThreadManagerEvent) => void>();
  private readonly registry: ThreadRegistry;
  private readonly lister = new ThreadLister();
  private readonly locator: SessionLocator;
  private readonly broker: ApprovalBroker;
  private readonly turns: TurnOperations;
  private readonly archive: ArchiveOperations;
  private port: ServerRequestPort | undefined;

  constructor(readonly options: ThreadManagerOptions) {
    const env = options.env ?? process.env;
    this.ctx = { agentDir: options.agentDir ?? resolveAgentDir(env), sessionDir: options.sessionDir, env };
    this.clock = options.clock ?? systemClock;
    this.models = options.models ?? registryModelSource(this.ctx.agentDir, env);
    this.locator = new SessionLocator(() => this.sessionRoots());
    this.broker = new ApprovalBroker(
      () => this.port,
      (threadId) => this.registry.threads.get(threadId)?.publishStatus(),
    );
    this.registry = new ThreadRegistry({
      ctx: this.ctx,
      clock: this.clock,
      locator: this.locator,
      broker: this.broker,
      emit: (event) => this.emit(event),
      resolveModel: (ref) => this.resolveModel(ref),
      abortAll: (runtime) => this.turns.abortAll(runtime),
      ...(options.extensionHostFactory ? { extensionHostFactory: options.extensionHostFactory } : {}),
      ...(options.extensionPaths ? { extensionPaths: options.extensionPaths } : {}),
      ...(options.idleUnloadMs !== undefined ? { idleUnloadMs: options.idleUnloadMs } : {}),
    });
    const env2: TurnEnvironment = {
      streamFn: options.streamFn ?? streamModel,
      getApiKey: (model) => this.models.getApiKey(model),
      tools: options.tools ?? ((cwd) => createBuiltinTools({ cwd })),
      systemPrompt: async (runtime, tools) =>
        options.systemPrompt
          ? options.systemPrompt(runtime.cwd)
          : threadSystemPrompt({
              agentDir: this.ctx.agentDir,
              cwd: runtime.cwd,
              trusted: runtime.trusted,
              tools,
              now: this.clock.now(),
            }),
      compaction:
        options.compaction ??
        createCompactionWiring(options.streamFn ?? streamModel, async (runtime) =>
          runtime.model ? this.models.getApiKey(runtime.model) : undefined,
        ),
      settled: (runtime) => this.turns.settled(runtime),
    };
    this.archive = this.createArchiveOperations();
    this.turns = new TurnOperations(env2, {
      runtime: (threadId, caller) => this.registry.load(threadId, caller),
      loaded: (threadId) => this.registry.threads.get(threadId),
      exists: (threadId) => this.locator.find(threadId) !== undefined,
      resolveModel: (ref) => this.resolveModel(ref),
    });
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

  private sessionRoots(): string[] {
    const override = this.ctx.sessionDir ?? this.ctx.env.KNIGHTCODE_CODING_AGENT_SESSION_DIR;
    const roots = [sessionsRoot(this.ctx.agentDir)];
    if (override) roots.unshift(override);
    return roots;
  }

  private listingDirs(): string[] {
    const override = this.ctx.sessionDir ?? this.ctx.env.KNIGHTCODE_CODING_AGENT_SESSION_DIR;
    if (override) return [override];
    return projectSessionDirs(sessionsRoot(this.ctx.agentDir));
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

  startThread(params: ThreadStartParams, caller: Caller): Promise<ThreadStartResult> {
    return wire(async () => {
      this.registry.refuseWhileClosing();
      await requireDirectory(params.cwd);
      const project = await readProjectSettings(this.ctx, params.cwd);
      const { settings } = project;
      const model = params.model ? await this.models.find(params.model) : await this.models.defaultModel();
      if (params.model && !model) {
        throw new AppServerError(
          "invalidParams",
          `Unknown model ${params.model.provider}/${params.model.id}`,
        );
      }
      const session = await createThreadSession(newSessionDir(this.ctx, params.cwd, settings), params, {
        approvalMode: params.approvalMode ?? defaultApprovalMode(caller.clientKind),
        model,
      });
      const runtime = await this.registry.adopt(session, caller, project);
      runtime.subscribe(caller.connectionId);
      runtime.noteInitiator(caller.connectionId);
      const thread = runtime.thread();
      this.toEveryone({ method: "thread/started", params: { thread } });
      runtime.publishStatus();
      return { thread, warnings: runtime.loadWarnings };
    });
  }

  resumeThread(params: ThreadResumeParams, caller: Caller): Promise<ThreadResumeResult> {
    return wire(async () => {
      const runtime = await this.registry.load(params.threadId, caller);
      // From here to the return nothing awaits: history, snapshots and the subscription share one send step.
      let page: HistoryTurns;
      try {
        page = historyTurns(runtime.session, runtime.running?.live, params.cursor);
      } catch (error) {
        this.registry.maybeIdle(runtime);
        throw error;
      }
      const turns = page.turns;
      runtime.subscribe(caller.connectionId);
      const result: ThreadResumeResult = {
        thread: runtime.thread(),
        turns,
        queue: runtime.queueState(),
        usage: runtime.usage(this.turns.contextTokens(runtime)),
        warnings: runtime.loadWarnings,
      };
      if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
      if (runtime.running) result.runningTurn = runtime.running.live.snapshot();
      return result;
    });
  }

  readThread(params: ThreadReadParams, _caller: Caller): Promise<ThreadReadResult> {
    return wire(async () => {
      const loaded = this.registry.threads.get(params.threadId);
      let session: SessionFile;
      let archived = false;
      if (loaded) session = loaded.session;
      else {
        const found = this.locator.find(params.threadId);
        if (!found) throw new AppServerError("threadNotFound", `Thread ${params.threadId} not found`);
        session = await SessionFiles.openReadOnly(found.path);
        archived = found.archived;
      }
      const { turns, nextCursor } = historyTurns(session, loaded?.running?.live, params.cursor);
      const thread = loaded
        ? loaded.thread()
        : unloadedThread(session, archived, this.registry.statusOf(session.id));
      return nextCursor !== undefined ? { thread, turns, nextCursor } : { thread, turns };
    });
  }

  listThreads(params: ThreadListParams, _caller: Caller): Promise<ThreadListResult> {
    return wire(async () => {
      const page = await this.lister.list({
        dirs: this.listingDirs(),
        ...(params.archived !== undefined ? { archived: params.archived } : {}),
        ...(params.cwd !== undefined ? { cwd: params.cwd } : {}),
        ...(params.limit !== undefined ? { limit: params.limit } : {}),
        ...(params.cursor !== undefined ? { cursor: params.cursor } : {}),
      });
      const threads = page.threads.map((s) => summaryOf(s, this.registry.statusOf(s.id)));
      return page.nextCursor !== undefined ? { threads, nextCursor: page.nextCursor } : { threads };
    });
  }

  forkThread(params: ThreadForkParams, caller: Caller): Promise<ThreadForkResult> {
    return wire(async () => {
      this.registry.refuseWhileClosing();
      const loaded = this.registry.threads.get(params.threadId);
      let source: SessionFile;
      if (loaded) source = loaded.session;
      else {
        const found = this.locator.find(params.threadId);
        if (!found) throw new AppServerError("threadNotFound", `Thread ${params.threadId} not found`);
        source = await SessionFiles.openReadOnly(found.path);
      }
      const cwd = source.header.cwd;
      const project = await readProjectSettings(this.ctx, cwd);
      const { settings } = project;
      const session = await createForkSession(source, newSessionDir(this.ctx, cwd, settings), params.name);
      const runtime = await this.registry.adopt(session, caller, project);
      runtime.subscribe(caller.connectionId);
      runtime.noteInitiator(caller.connectionId);
      const thread = runtime.thread();
      this.toEveryone({ method: "thread/started", params: { thread } });
      runtime.publishStatus();
      return { thread, warnings: runtime.loadWarnings };
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
    return wire(() => this.archive.move(params.threadId, "archive"));
  }

  unarchiveThread(params: ThreadUnarchiveParams, _caller: Caller): Promise<Record<string, never>> {
    return wire(() => this.archive.move(params.threadId, "unarchive"));
  }

  deleteThread(params: ThreadDeleteParams, _caller: Caller): Promise<Record<string, never>> {
    return wire(() => this.archive.delete(params.threadId));
  }

  updateSettings(params: ThreadSettingsUpdateParams, caller: Caller): Promise<ThreadSettingsUpdateResult> {
    return wire(async () => {
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
      if ("threadId" in params) {
        const runtime = this.registry.threads.get(params.threadId);
        if (runtime) {
          return {
            commands: await listCommands(this.ctx.agentDir, runtime.cwd, runtime.extensions.commands),
          };
        }
        const found = this.locator.find(params.threadId);
        if (!found) throw new AppServerError("threadNotFound", `Thread ${params.threadId} not found`);
        const session = await SessionFiles.openReadOnly(found.path);
        return { commands: await listCommands(this.ctx.agentDir, session.header.cwd, []) };
      }
      await requireDirectory(params.cwd);
      return { commands: await listCommands(this.ctx.agentDir, params.cwd, []) };
    });
  }

  startTurn: ThreadManagerApi["startTurn"] = (params, caller) => wire(() => this.turns.start(params, caller));
  steerTurn: ThreadManagerApi["steerTurn"] = (params, caller) => wire(() => this.turns.steer(params, caller));
  interruptTurn: ThreadManagerApi["interruptTurn"] = (params, caller) =>
    wire(() => this.turns.interrupt(params, caller));
  addToQueue: ThreadManagerApi["addToQueue"] = (params, caller) =>
    wire(() => this.turns.queueAdd(params, caller));
  removeFromQueue: ThreadManagerApi["removeFromQueue"] = (params, caller) =>
    wire(() => this.turns.queueRemove(params, caller));

  attachServerRequests(port: ServerRequestPort): void {
    this.port = port;
  }

  onEvent(listener: (event: ThreadManagerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  connectionClosed(connectionId: string): void {
    for (const runtime of this.registry.threads.values()) {
      const at = runtime.subscribers.indexOf(connectionId);
      if (at >= 0) {
        runtime.subscribers.splice(at, 1);
        this.registry.maybeIdle(runtime);
      }
    }
    this.broker.note({ type: "disconnected", connectionId });
  }

  diagnostics(): ThreadManagerDiagnostics {
    return {
      loadedThreads: this.registry.threads.size,
      loadingThreads: this.registry.loading.size,
      inactiveFactories: 0,
      listingFilesOpened: this.lister.counters.filesOpened,
      listingBytesScanned: this.lister.counters.bytesScanned,
    };
  }

  async closeAll(): Promise<void> {
    this.registry.closing = true;
    await Promise.allSettled([...this.registry.loading.values()]);
    const runtimes = [...this.registry.threads.values()];
    for (const runtime of runtimes) this.turns.abortAll(runtime);
    await Promise.allSettled(runtimes.map((r) => this.turns.settledPromise(r)));
    for (const runtime of runtimes) await this.registry.unload(runtime);
  }

  /** Test and embedder hook: the loaded runtime of a thread, if any. */
  loadedThread(threadId: string): ThreadRuntime | undefined {
    return this.registry.threads.get(threadId);
  }
}
