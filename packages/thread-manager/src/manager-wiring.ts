/**
 * The parts a `ThreadManager` delegates to, built from its options: the approval and
 * dialog brokers, the registry of loaded threads, creation, reads, archive, compaction,
 * and the turn methods (loaded with the first turn, `turns/lazy-turns.ts`). The manager
 * itself only routes methods to these.
 */
import { join } from "node:path";
import { type Model, streamModel } from "@knightcode/ai";
import type { ModelRef } from "@knightcode/app-server-protocol";
import { resolveAgentDir } from "@knightcode/config";
// the hub and the server specs, not the tool adapter (it loads with the first MCP tools)
import { McpHub } from "@knightcode/mcp/mcp-hub";
import type { ServerRequestPort, ThreadManagerEvent } from "./api.ts";
import { CheckpointStore } from "./checkpoints/checkpoint-store.ts";
import { type Clock, systemClock } from "./clock.ts";
import { extensionTurnActions } from "./extensions/extension-actions.ts";
import { type DialogBroker, dialogChannel } from "./extensions/extension-dialogs.ts";
import type { ThreadManagerOptions } from "./manager-options.ts";
import { type ModelSource, registryModelSource, warmingModelSource } from "./threads/model-source.ts";
import { SessionDirectories } from "./threads/session-dirs.ts";
import { SessionLocator } from "./threads/session-locator.ts";
import { ArchiveOperations } from "./threads/thread-archive.ts";
import { ThreadCreation } from "./threads/thread-creation.ts";
import { type LoaderContext, readProjectSettings } from "./threads/thread-loader.ts";
import { ThreadReads } from "./threads/thread-reads.ts";
import { ThreadRegistry } from "./threads/thread-registry.ts";
import { ThreadWorktrees } from "./threads/thread-worktrees.ts";
import { threadToolBackendFactory } from "./tools/tool-backend.ts";
import { type ApprovalBroker, approvalChannel, RequestBroker } from "./turns/approval-broker.ts";
import { createCompactionWiring } from "./turns/compaction-wiring.ts";
import type { CompactionHooks } from "./turns/environment.ts";
import { LazyTurns } from "./turns/lazy-turns.ts";
import { abortTurns, turnSettled } from "./turns/turn-abort.ts";
import { TurnDiffs } from "./turns/turn-diffs.ts";
import { worktreesKeep } from "./worktrees/worktree-settings.ts";

/** What the parts call back into the manager for. */
export interface ManagerOutside {
  port(): ServerRequestPort | undefined;
  emit(event: ThreadManagerEvent): void;
}

/** Everything a manager delegates to. */
export interface ManagerParts {
  ctx: LoaderContext;
  clock: Clock;
  models: ModelSource;
  mcpHub: McpHub;
  dirs: SessionDirectories;
  broker: ApprovalBroker;
  dialogs: DialogBroker;
  registry: ThreadRegistry;
  reads: ThreadReads;
  creation: ThreadCreation;
  archive: ArchiveOperations;
  /** Compaction at turns' check points; also usage reports' context size and tree navigation's summaries. */
  compaction: CompactionHooks;
  /** The turn methods, loaded with the first request that runs a turn. */
  turns: LazyTurns;
  /** Turn diffs (`turn/diff/updated`) and each thread's latest turn start. */
  diffs: TurnDiffs;
  /** `thread/diff` and `worktree/*`. */
  worktrees: ThreadWorktrees;
  /** Every thread's `/undo` checkpoints. */
  checkpoints: CheckpointStore;
}

/** Builds a manager's parts. */
export function wireManager(options: ThreadManagerOptions, outside: ManagerOutside): ManagerParts {
  const env = options.env ?? process.env;
  const ctx: LoaderContext = {
    agentDir: options.agentDir ?? resolveAgentDir(env),
    sessionDir: options.sessionDir,
    env,
  };
  // OAuth credentials of HTTP servers live in the agent dir, never in settings
  const mcpHub = options.mcpHub ?? new McpHub({ env, oauthDir: join(ctx.agentDir, "mcp-oauth") });
  const clock = options.clock ?? systemClock;
  const models = warmingModelSource(options.models ?? registryModelSource(ctx.agentDir, env));
  const dirs = new SessionDirectories(ctx);
  const locator = new SessionLocator(() => dirs.roots());
  const resolveModel = async (ref: ModelRef | undefined): Promise<Model | undefined> =>
    ref ? models.find(ref) : undefined;
  const streamFn = options.streamFn ?? streamModel;
  const compaction =
    options.compaction ??
    createCompactionWiring(streamFn, async (thread) =>
      thread.model ? models.getApiKey(thread.model) : undefined,
    );
  const diffs = new TurnDiffs();
  const checkpoints = new CheckpointStore();
  const parts = { ctx, clock, models, mcpHub, dirs, compaction, diffs, checkpoints } as ManagerParts;
  parts.broker = new RequestBroker(
    () => outside.port(),
    (threadId) => parts.registry.threads.get(threadId)?.publishStatus(),
    approvalChannel,
  );
  parts.dialogs = new RequestBroker(
    () => outside.port(),
    () => {},
    dialogChannel,
  );
  parts.turns = new LazyTurns(async () => {
    const { createTurnOperations } = await import("./turns/turn-machinery.ts");
    return createTurnOperations(
      options,
      { agentDir: ctx.agentDir, models, streamFn, compaction, now: () => clock.now(), diffs },
      {
        runtime: (threadId, caller) => parts.reads.load(threadId, caller),
        loaded: (threadId) => parts.registry.threads.get(threadId),
        exists: async (threadId) => (await parts.reads.locate(threadId)) !== undefined,
        resolveModel,
        reloadExtensions: (thread) => parts.registry.reloadExtensions(thread),
        replaced: (thread, reason, targetSessionFile) =>
          parts.registry.reloadExtensions(thread, { shutdown: reason, start: "resume", targetSessionFile }),
      },
      parts.creation,
    );
  }, [
    () => import("@knightcode/approvals"),
    () => import("@knightcode/agent"),
    // not the turn methods' own graph: the rest of compaction, which a first prompt's check loads
    () => import("@knightcode/compaction"),
  ]);
  parts.registry = new ThreadRegistry({
    ctx,
    clock,
    locator,
    broker: parts.broker,
    dialogs: parts.dialogs,
    serverRequests: () => outside.port(),
    emit: (event) => outside.emit(event),
    ...(options.replayLimits === undefined ? {} : { replayLimits: options.replayLimits }),
    resolveModel,
    abortAll: (runtime) => abortTurns(runtime),
    models,
    extensionActions: extensionTurnActions(parts.turns, compaction, () => parts.creation),
    outputReady: (connectionIds) => outside.port()?.outputReady?.(connectionIds),
    ...(options.extensionHostFactory ? { extensionHostFactory: options.extensionHostFactory } : {}),
    toolBackend: threadToolBackendFactory({
      ...options,
      env: options.toolEnv,
      hiddenDirs: () => [
        ctx.agentDir,
        ...(ctx.sessionDir === undefined ? [] : [ctx.sessionDir]),
        ...dirs.roots(),
      ],
    }),
    ...(options.extensionPaths ? { extensionPaths: options.extensionPaths } : {}),
    ...(options.extensionFlags ? { extensionFlags: options.extensionFlags } : {}),
    ...(options.idleUnloadMs !== undefined ? { idleUnloadMs: options.idleUnloadMs } : {}),
    mcpHub,
    mcpSampling: { streamFn, apiKey: (model) => models.getApiKey(model) },
    checkpoints,
    ...(options.toolSources ? { toolSources: options.toolSources } : {}),
  });
  parts.reads = new ThreadReads({
    agentDir: ctx.agentDir,
    registry: parts.registry,
    locator,
    dirs,
    compaction,
    models,
    emit: (event) => outside.emit(event),
  });
  parts.creation = new ThreadCreation({
    ctx,
    dirs,
    registry: parts.registry,
    models,
    emit: (event) => outside.emit(event),
  });
  parts.worktrees = new ThreadWorktrees({
    agentDir: ctx.agentDir,
    diffs,
    loaded: (threadId) => parts.registry.threads.get(threadId),
    loading: (threadId) => parts.registry.loading.has(threadId),
    session: async (threadId) => (await parts.reads.sourceSession(threadId)).session,
    exists: async (threadId) => (await parts.reads.locate(threadId).catch(() => undefined)) !== undefined,
    keep: async () => worktreesKeep((await readProjectSettings(ctx, ctx.agentDir)).globalSettings),
  });
  parts.archive = new ArchiveOperations({
    loaded: (id) => parts.registry.threads.get(id),
    isLoading: (id) => parts.registry.loading.has(id),
    locator,
    deleting: parts.registry.deleting,
    unload: (runtime) => parts.registry.unload(runtime),
    deleted: (id) => {
      parts.registry.systemErrors.delete(id);
      checkpoints.forget(id);
      outside.emit({
        audience: "everyone",
        notification: { method: "thread/deleted", params: { threadId: id } },
      });
    },
  });
  return parts;
}

/** A connection went away: it leaves every thread it followed, and its open requests are withdrawn (or kept for a reconnect). */
export function connectionClosed(parts: ManagerParts, connectionId: string, keepPending: boolean): void {
  const { registry, broker, dialogs } = parts;
  for (const runtime of registry.threads.values()) {
    const at = runtime.subscribers.indexOf(connectionId);
    if (at >= 0) {
      runtime.subscribers.splice(at, 1);
      registry.maybeIdle(runtime);
    }
  }
  const keep = keepPending ? { keepPending: true } : {};
  broker.note({ type: "disconnected", connectionId, ...keep });
  dialogs.note({ type: "disconnected", connectionId, ...keep });
}

/** Shutdown: interrupts running work, waits for it to settle, unloads every thread and stops the MCP servers. */
export async function closeAll(parts: ManagerParts): Promise<void> {
  const { registry, mcpHub } = parts;
  registry.closing = true;
  // First, so loads waiting on a server's start (up to its timeout) finish now.
  const serversStopped = mcpHub.closeAll();
  await Promise.allSettled([...registry.loading.values()]);
  const runtimes = [...registry.threads.values()];
  for (const runtime of runtimes) abortTurns(runtime);
  await Promise.allSettled(runtimes.map((r) => turnSettled(r)));
  for (const runtime of runtimes) await registry.unload(runtime);
  parts.checkpoints.disposeAll();
  await serversStopped;
}
