/**
 * The loaded threads of one manager: loading (one owner per transcript, one load in
 * flight per thread), idle unloading through the injectable clock, ownership loss, and
 * the status a thread shows when it is not loaded.
 */

import type { ToolOperations } from "@knightcode/agent";
import type { Model } from "@knightcode/ai";
import {
  AppServerError,
  type ExtensionFlagArg,
  type McpServers,
  type ModelRef,
  type ThreadStatus,
} from "@knightcode/app-server-protocol";
import { defaultApprovalMode } from "@knightcode/approvals/modes";
import type { McpHub } from "@knightcode/mcp";
import { SessionFile, type SyncingSession } from "@knightcode/session-store";
import type { Caller, ServerRequestPort, ThreadManagerEvent } from "../api.ts";
import type { CheckpointStore } from "../checkpoints/checkpoint-store.ts";
import type { Clock } from "../clock.ts";
import {
  createThreadDialogUI,
  type DialogBroker,
  type DialogUIHost,
  dialogsAvailable,
} from "../extensions/extension-dialogs.ts";
import {
  type ExtensionHost,
  type ExtensionHostFactory,
  noopExtensionHostFactory,
} from "../extensions/extension-hooks.ts";
import {
  type BoundExtensionPort,
  createExtensionPort,
  type ExtensionTurnActions,
} from "../extensions/extension-port.ts";
import type { Warning } from "../shapes.ts";
import type { ThreadPort } from "../thread-port.ts";
import { createMcpSampler, type SamplingModelAccess } from "../tools/mcp-sampling.ts";
import { createMcpToolSource } from "../tools/mcp-source.ts";
import {
  isolatedToolBackendFactory,
  type ThreadToolBackend,
  type ToolBackendFactory,
} from "../tools/tool-backend.ts";
import type { ThreadToolSourceFactory, ToolSourceContext } from "../tools/tool-sources.ts";
import type { ApprovalBroker } from "../turns/approval-broker.ts";
import type { ModelSource } from "./model-source.ts";
import { ProviderLeases } from "./provider-leases.ts";
import type { ReplayLimits } from "./replay-buffer.ts";
import type { SessionLocator } from "./session-locator.ts";
import type { SessionReplacing } from "./session-replacing.ts";
import { sessionDamageWarnings } from "./session-warnings.ts";
import {
  branchSettings,
  type LoaderContext,
  type ProjectSettings,
  readProjectSettings,
} from "./thread-loader.ts";
import { type RuntimeHost, runtimeOf, ThreadRuntime } from "./thread-runtime.ts";
import { reopenThreadWorktree } from "./thread-worktrees.ts";

/** A thread unloads after this long without subscribers or running work. */
export const IDLE_UNLOAD_MS = 10 * 60 * 1000;

/** What the registry needs from its manager. */
export interface RegistryOptions {
  ctx: LoaderContext;
  clock: Clock;
  locator: SessionLocator;
  broker: ApprovalBroker;
  dialogs: DialogBroker;
  emit(event: ThreadManagerEvent): void;
  resolveModel(ref: ModelRef | undefined): Promise<Model | undefined>;
  /** Interrupts a thread's work without waiting (ownership loss). */
  abortAll(runtime: ThreadRuntime): void;
  extensionHostFactory?: ExtensionHostFactory;
  /** Each thread's tool operations (local with credential hygiene by default). */
  toolBackend?: ToolBackendFactory;
  extensionPaths?: string[];
  /** Command-line flags for the extensions (`ThreadManagerOptions.extensionFlags`). */
  extensionFlags?: ExtensionFlagArg[];
  /** Models extensions may list and pick. */
  models?: ModelSource;
  /** Turn actions extension APIs perform (send a message, steer, compact). */
  extensionActions?: ExtensionTurnActions;
  idleUnloadMs?: number;
  /** See `ThreadManagerOptions.replayLimits`. */
  replayLimits?: ReplayLimits;
  /** The manager's MCP server processes, shared by its threads. */
  mcpHub: McpHub;
  /** The model access MCP sampling requests are answered with; absent, servers' requests are refused. */
  mcpSampling?: SamplingModelAccess;
  /** Every thread's `/undo` checkpoints, kept across unloads. */
  checkpoints: CheckpointStore;
  /** Further per-thread tool sources, after MCP. */
  toolSources?: readonly ThreadToolSourceFactory[];
  /** The server's request port (extension dialogs go through it). */
  serverRequests?(): ServerRequestPort | undefined;
  /** Backpressure of connections' output, from the server. */
  outputReady?(connectionIds: readonly string[]): Promise<void> | undefined;
}

/** Loaded threads and their lifecycle. */
export class ThreadRegistry {
  readonly threads = new Map<string, ThreadRuntime>();
  /** Providers the threads' extensions registered, held until the last holder lets go. */
  private readonly providers = new ProviderLeases(() => this.options.models);
  readonly loading = new Map<string, Promise<ThreadRuntime>>();
  /** Ownership-loss messages, visible after unload until a successful reload. */
  readonly systemErrors = new Map<string, string>();
  /** Threads being deleted: loads refuse them. */
  readonly deleting = new Set<string>();
  closing = false;
  private readonly host: RuntimeHost;

  constructor(private readonly options: RegistryOptions) {
    this.host = {
      emit: (event) => options.emit(event),
      ...(options.replayLimits === undefined ? {} : { replayLimits: options.replayLimits }),
      broker: options.broker,
      dialogs: options.dialogs,
      clock: options.clock,
      resolveModel: (ref) => options.resolveModel(ref),
      maybeIdle: (runtime) => this.maybeIdle(runtime),
      checkpoints: options.checkpoints,
      ownershipLost: (runtime, error) => this.ownershipLost(runtime, error),
      closedError: (runtime) => this.closedError(runtime.id),
      outputReady: (connectionIds) => options.outputReady?.(connectionIds),
    };
  }

  /**
   * Why an unloaded runtime refuses work: its thread is being (or was) deleted, the server
   * is shutting down, or ownership was lost. Undefined for a plain unload (idle, archive).
   */
  closedError(threadId: string): AppServerError | undefined {
    if (this.deleting.has(threadId) || !this.options.locator.find(threadId)) {
      return new AppServerError("threadNotFound", `Thread ${threadId} not found`);
    }
    const lost = this.systemErrors.get(threadId);
    if (lost !== undefined) return new AppServerError("threadLockedElsewhere", lost);
    if (this.closing) return new AppServerError("shuttingDown", "The server is shutting down");
    return undefined;
  }

  refuseWhileClosing(): void {
    if (this.closing) throw new AppServerError("shuttingDown", "The server is shutting down");
  }

  /** A status for a thread that is not loaded: its ownership-loss error, or `notLoaded`. */
  unloadedStatus(threadId: string): ThreadStatus {
    const message = this.systemErrors.get(threadId);
    return message !== undefined ? { type: "systemError", message } : { type: "notLoaded" };
  }

  statusOf(threadId: string): ThreadStatus {
    return this.threads.get(threadId)?.status() ?? this.unloadedStatus(threadId);
  }

  /**
   * Wraps an owned session as a loaded thread with its extensions and branch settings.
   * A new transcript is made durable (`ensureDurable`, its fsyncs having run meanwhile)
   * before the thread is registered; if that fails, everything built for the thread is
   * disposed (the caller closes the session).
   */
  async adopt(
    session: SessionFile,
    caller: Caller,
    project: ProjectSettings,
    extraWarnings: Warning[] = [],
    mcpServers?: McpServers,
    durable?: Pick<SyncingSession, "ensureDurable">,
    replacing?: SessionReplacing,
  ): Promise<ThreadRuntime> {
    // The tool backend comes first: extensions get it for `exec` and `ctx.toolOperations()`.
    const tools: ThreadToolBackend = await (this.options.toolBackend ?? isolatedToolBackendFactory())({
      cwd: session.header.cwd,
      globalSettings: project.globalSettings,
      projectSettings: project.projectSettings,
    });
    let loaded: Awaited<ReturnType<ThreadRegistry["loadExtensions"]>>;
    try {
      loaded = await this.loadExtensions(
        session,
        caller.clientKind,
        project,
        replacing ?? { reason: "startup" },
        tools.ops,
        caller.connectionId,
      );
    } catch (error) {
      await tools.dispose().catch(() => undefined);
      throw error;
    }
    const { extensions, port, replayDisplay } = loaded;
    const settings = branchSettings(session, defaultApprovalMode(caller.clientKind));
    const warnings = [
      ...sessionDamageWarnings(session),
      ...project.warnings,
      ...extraWarnings,
      ...extensions.warnings,
      ...tools.warnings,
    ];
    const runtime = new ThreadRuntime(session, this.host, extensions, settings, warnings, caller.clientKind);
    runtime.tools = tools;
    runtime.replayDisplay = replayDisplay;
    try {
      warnings.push(...(await this.attachToolSources(runtime, project, mcpServers)));
      durable?.ensureDurable();
    } catch (error) {
      await this.releaseToolSources(runtime);
      await tools.dispose().catch(() => undefined);
      await extensions.dispose().catch(() => undefined);
      throw error;
    }
    port?.attach(runtime);
    this.registerProviders(runtime, extensions);
    runtime.projectSettings = project.settings;
    runtime.trusted = project.trusted;
    runtime.projectDir = project.projectDir;
    runtime.settingsSources = { global: project.globalSettings, project: project.projectSettings };
    runtime.model = await this.options.resolveModel(settings.model);
    this.threads.set(session.id, runtime);
    this.options.locator.remember(session.id, session.path);
    this.systemErrors.delete(session.id);
    return runtime;
  }

  /** Starts a new runtime's MCP servers and the manager's tool sources; resolves with their warnings. */
  private async attachToolSources(
    runtime: ThreadRuntime,
    project: ProjectSettings,
    mcpServers: McpServers | undefined,
  ): Promise<Warning[]> {
    const context: ToolSourceContext = {
      threadId: runtime.id,
      cwd: runtime.cwd,
      projectDir: project.projectDir,
      trusted: project.trusted,
      settings: { global: project.globalSettings, project: project.projectSettings },
      mcpServers,
      warn: (warning) => runtime.warn(warning),
    };
    const warnings: Warning[] = [];
    const sampling = this.options.mcpSampling;
    const mcp = await createMcpToolSource(
      this.options.mcpHub,
      context,
      sampling !== undefined ? createMcpSampler(runtime, sampling) : undefined,
    );
    runtime.mcp = mcp.source;
    runtime.toolSources.push(mcp.source);
    warnings.push(...mcp.warnings);
    for (const factory of this.options.toolSources ?? []) {
      const made = await factory(context);
      runtime.toolSources.push(made.source);
      warnings.push(...made.warnings);
    }
    return warnings;
  }

  private async releaseToolSources(runtime: ThreadRuntime): Promise<void> {
    const sources = runtime.toolSources.splice(0);
    const results = await Promise.allSettled(sources.map((source) => source.dispose()));
    for (const result of results) {
      if (result.status === "rejected")
        process.stderr.write(`[thread-manager] tool source dispose failed: ${String(result.reason)}\n`);
    }
  }

  /**
   * Whether loading this (unloaded) thread would run an extension, asked of the factory's
   * discovery with the settings and trust the load would use; nothing is loaded or
   * locked. A factory that cannot tell is taken to find one.
   */
  async findsExtensions(session: SessionFile, mode: "desktop" | "terminal"): Promise<boolean> {
    const factory = this.options.extensionHostFactory ?? noopExtensionHostFactory;
    if (!factory.findsExtensions) return true;
    const project = await readProjectSettings(this.options.ctx, session.header.cwd);
    return factory.findsExtensions({
      context: { threadId: session.id, cwd: session.header.cwd, mode, hasUI: false },
      extensionPaths: this.options.extensionPaths ?? [],
      agentDir: this.options.ctx.agentDir,
      settings: project.settings,
      trusted: project.trusted,
      projectDir: project.projectDir,
    });
  }

  /** Builds a thread's extension host with a port bound to its session. */
  private async loadExtensions(
    session: SessionFile,
    mode: "desktop" | "terminal",
    project: Pick<ProjectSettings, "settings" | "trusted" | "projectDir">,
    start: { reason: "startup" | "reload" | "resume" } | SessionReplacing,
    toolOperations: ToolOperations | undefined,
    /** The connection loading the thread: it counts for `hasUI` until the thread is registered. */
    opener?: string,
  ): Promise<{
    extensions: ExtensionHost;
    port: BoundExtensionPort | undefined;
    replayDisplay: (connectionId: string) => void;
  }> {
    const port = this.options.models
      ? createExtensionPort(
          session,
          this.options.models,
          this.options.extensionActions,
          (thread) => this.reloadExtensions(thread),
          (thread) => this.registerProviders(runtimeOf(thread), thread.extensions),
        )
      : undefined;
    const dialogHost: DialogUIHost = {
      dialogs: this.options.dialogs,
      port: () => this.options.serverRequests?.(),
      runtime: () => {
        const runtime = this.threads.get(session.id);
        return runtime && !runtime.closed ? runtime : undefined;
      },
      emit: (connectionIds, notification) =>
        this.options.emit({ audience: "connections", connectionIds, notification }),
      ...(opener !== undefined ? { opener } : {}),
    };
    const dialogUI = createThreadDialogUI(session.id, dialogHost);
    const extensions = await (this.options.extensionHostFactory ?? noopExtensionHostFactory)({
      context: { threadId: session.id, cwd: session.header.cwd, mode, hasUI: false },
      extensionPaths: this.options.extensionPaths ?? [],
      ...(this.options.extensionFlags ? { flagArgs: this.options.extensionFlags } : {}),
      agentDir: this.options.ctx.agentDir,
      settings: project.settings,
      trusted: project.trusted,
      projectDir: project.projectDir,
      reason: start.reason,
      ...("previousSessionFile" in start ? { previousSessionFile: start.previousSessionFile } : {}),
      ui: dialogUI.ui,
      uiAvailable: () => dialogsAvailable(dialogHost),
      ...(port ? { thread: port } : {}),
      ...(toolOperations ? { toolOperations } : {}),
    });
    return { extensions, port, replayDisplay: dialogUI.replayTo };
  }

  /**
   * Registers the host's providers with the shared model source and withdraws those this
   * thread registered before that the host no longer has (`unregisterProvider`, or gone
   * after `/reload`).
   */
  private registerProviders(runtime: ThreadRuntime, extensions: ExtensionHost): void {
    runtime.providerNames = this.providers.update(
      runtime.id,
      runtime.providerNames,
      extensions.providers?.() ?? [],
    );
  }

  /**
   * `/reload`: shuts the thread's extensions down (`session_shutdown{reason:"reload"}`) and
   * loads them again (`session_start{reason:"reload"}`); old API and ctx objects turn stale.
   * New load problems go to subscribers as warnings.
   */
  async reloadExtensions(
    thread: ThreadPort,
    reasons: {
      shutdown: "reload" | "new" | "fork";
      start: "reload" | "resume";
      /** The thread that replaced this one (`session_shutdown.targetSessionFile`). */
      targetSessionFile?: string;
    } = {
      shutdown: "reload",
      start: "reload",
    },
  ): Promise<void> {
    const runtime = runtimeOf(thread);
    runtime.assertOpen();
    try {
      await runtime.extensions.dispose(reasons.shutdown, reasons.targetSessionFile);
    } catch (error) {
      runtime.warn({
        source: "extension",
        message: `Extension shutdown failed: ${(error as Error).message}`,
      });
    }
    const { extensions, port, replayDisplay } = await this.loadExtensions(
      runtime.session,
      runtime.clientMode,
      { settings: runtime.projectSettings, trusted: runtime.trusted, projectDir: runtime.projectDir },
      { reason: reasons.start },
      runtime.tools.ops,
    );
    if (runtime.closed) {
      await extensions.dispose();
      return;
    }
    port?.attach(runtime);
    runtime.extensions = extensions;
    runtime.replayDisplay = replayDisplay;
    this.registerProviders(runtime, extensions);
    for (const warning of extensions.warnings) runtime.warn(warning);
  }

  /** Loads and owns a thread, or returns it when already loaded. */
  async load(threadId: string, caller: Caller, mcpServers?: McpServers): Promise<ThreadRuntime> {
    this.refuseWhileClosing();
    if (this.deleting.has(threadId)) {
      throw new AppServerError("threadNotFound", `Thread ${threadId} is being deleted`);
    }
    const loaded = this.threads.get(threadId);
    if (loaded) return loaded;
    const inFlight = this.loading.get(threadId);
    if (inFlight) return inFlight;
    const found = this.options.locator.find(threadId);
    if (!found) throw new AppServerError("threadNotFound", `Thread ${threadId} not found`);
    const promise = (async () => {
      const session = await SessionFile.openOwned(found.path);
      try {
        // a thread in a worktree whose folder was deleted gets it back from its branch
        const worktreeWarnings = await reopenThreadWorktree(session.header.worktree);
        return await this.adopt(
          session,
          caller,
          await readProjectSettings(this.options.ctx, session.header.cwd),
          worktreeWarnings,
          mcpServers,
        );
      } catch (error) {
        session.close();
        throw error;
      }
    })();
    this.loading.set(threadId, promise);
    try {
      const runtime = await promise;
      runtime.publishStatus();
      // A load whose request then fails (a bad image, no model) subscribes nobody: the
      // idle clock starts now, and the request's subscription, if any, stops it.
      this.maybeIdle(runtime);
      return runtime;
    } finally {
      this.loading.delete(threadId);
    }
  }

  /** Schedules the unload of a thread with no subscriber and no work. */
  maybeIdle(runtime: ThreadRuntime): void {
    if (runtime.closed || runtime.idleTimer) return;
    const idle = () => runtime.subscribers.length === 0 && !runtime.busy && runtime.queue.length === 0;
    if (!idle()) return;
    runtime.idleTimer = this.options.clock.setTimeout(() => {
      runtime.idleTimer = undefined;
      if (idle()) void this.unload(runtime);
    }, this.options.idleUnloadMs ?? IDLE_UNLOAD_MS);
  }

  /** Releases a thread: its lock, its grants and its extensions. */
  async unload(runtime: ThreadRuntime): Promise<void> {
    if (runtime.closed) return;
    runtime.closed = true;
    runtime.idleTimer?.cancel();
    runtime.idleTimer = undefined;
    this.options.broker.note({ type: "threadClosed", threadId: runtime.id });
    this.options.dialogs.note({ type: "threadClosed", threadId: runtime.id });
    if (this.threads.get(runtime.id) === runtime) this.threads.delete(runtime.id);
    runtime.session.close();
    this.options.emit({
      audience: "everyone",
      notification: {
        method: "thread/status/changed",
        params: { threadId: runtime.id, status: this.unloadedStatus(runtime.id) },
      },
    });
    try {
      await runtime.extensions.dispose();
    } catch (error) {
      process.stderr.write(`[thread-manager] extension dispose failed: ${(error as Error).message}\n`);
    }
    try {
      await runtime.tools.dispose();
    } catch (error) {
      process.stderr.write(`[thread-manager] tool backend dispose failed: ${(error as Error).message}\n`);
    }
    await this.releaseToolSources(runtime);
    // after the extensions' shutdown, so a provider they withdrew there is not released twice
    this.providers.releaseAll(runtime.id, runtime.providerNames);
    runtime.providerNames = new Set();
    // The last turn's end marker may still be on its way to the disk.
    await runtime.session.syncsDone();
  }

  /** Another process took the transcript: stop writing, report, and unload. */
  ownershipLost(runtime: ThreadRuntime, error: Error): void {
    if (runtime.closed) return;
    const message = `Ownership of the session file was lost: ${error.message}`;
    this.systemErrors.set(runtime.id, message);
    runtime.toSubscribers({
      method: "error",
      params: { threadId: runtime.id, message, code: "threadLockedElsewhere" },
    });
    this.options.abortAll(runtime);
    void this.unload(runtime);
  }
}
