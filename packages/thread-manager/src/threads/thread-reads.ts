/**
 * Finding threads and reading them: locating a transcript (re-reading the session-dir
 * settings on a miss), a thread's session loaded or read-only, `thread/resume`'s answer
 * (history, queue, usage and the running turn's snapshot in one send step),
 * `thread/read`, `thread/list`, and the source a fork copies.
 */

import {
  AppServerError,
  type ExtensionFlag,
  type ThreadListParams,
  type ThreadListResult,
  type ThreadReadParams,
  type ThreadReadResult,
  type ThreadResumeParams,
  type ThreadResumeResult,
  type ThreadSummary,
  type Warning,
} from "@knightcode/app-server-protocol";
import { type SessionFile, SessionFile as SessionFiles, ThreadLister } from "@knightcode/session-store";
import type { Caller, ThreadManagerEvent } from "../api.ts";
import { type HistoryTurns, historyTurns } from "../history/history-read.ts";
import { PAGE_FIELDS_RESERVE_BYTES, sentRunningTurnBytes, turnBudget } from "../history/response-budget.ts";
import type { CompactionHooks } from "../turns/environment.ts";
import { isWireError } from "../wire-errors.ts";
import type { ModelSource } from "./model-source.ts";
import { replayGap } from "./replay-buffer.ts";
import type { SessionDirectories } from "./session-dirs.ts";
import type { LocatedSession, SessionLocator } from "./session-locator.ts";
import { sessionDamageWarnings } from "./session-warnings.ts";
import type { ThreadRegistry } from "./thread-registry.ts";
import { threadResources } from "./thread-resources.ts";
import type { ThreadRuntime } from "./thread-runtime.ts";
import { summaryOf, unloadedThread } from "./thread-views.ts";
import { reopenThreadWorktree } from "./thread-worktrees.ts";

export const notFound = (threadId: string) =>
  new AppServerError("threadNotFound", `Thread ${threadId} not found`);

/** The `extensionFlags` of a start, fork or resume result: present when an extension registered one. */
export function extensionFlagsOf(runtime: ThreadRuntime): { extensionFlags?: ExtensionFlag[] } {
  const flags = runtime.extensions.flags?.() ?? [];
  return flags.length === 0 ? {} : { extensionFlags: flags };
}

/** What reading threads needs from the manager. */
export interface ThreadReadsHost {
  /** Where the agent's own context file is read (a thread's `resources`). */
  agentDir: string;
  registry: ThreadRegistry;
  locator: SessionLocator;
  dirs: SessionDirectories;
  /** Usage reports' context size. */
  compaction: Pick<CompactionHooks, "contextTokens">;
  /** Problems with the model configuration, for a resumed thread's warnings. */
  models: Pick<ModelSource, "warnings">;
  /** Sends a replayed notification to the connection resuming. */
  emit(event: ThreadManagerEvent): void;
}

/** Locating and reading threads, loaded or not. */
export class ThreadReads {
  readonly lister = new ThreadLister();

  constructor(private readonly host: ThreadReadsHost) {}

  /** Finds a transcript; on a miss, re-reads the session-dir settings and searches again. */
  async locate(threadId: string): Promise<LocatedSession | undefined> {
    const { registry, locator, dirs } = this.host;
    if (registry.threads.has(threadId)) return locator.find(threadId);
    const found = locator.find(threadId);
    if (found) return found;
    await dirs.refresh();
    return locator.find(threadId);
  }

  /** A loaded thread's session, else the transcript opened read-only (no lock, no write). */
  async sourceSession(threadId: string): Promise<{ session: SessionFile; archived: boolean }> {
    const loaded = this.host.registry.threads.get(threadId);
    if (loaded) return { session: loaded.session, archived: false };
    const found = await this.locate(threadId);
    if (!found) throw notFound(threadId);
    return { session: await SessionFiles.openReadOnly(found.path), archived: found.archived };
  }

  /** A loaded thread, else located and loaded (the registry's one load in flight). */
  async load(threadId: string, caller: Caller): Promise<ThreadRuntime> {
    if (!this.host.registry.threads.has(threadId)) await this.locate(threadId);
    return this.host.registry.load(threadId, caller);
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
  async forkSource(
    threadId: string,
    caller: Caller,
  ): Promise<{ session: SessionFile; runtime?: ThreadRuntime }> {
    const registry = this.host.registry;
    const loaded = registry.threads.get(threadId);
    if (loaded) return { session: loaded.session, runtime: loaded };
    const { session } = await this.sourceSession(threadId);
    if (!(await registry.findsExtensions(session, caller.clientKind))) return { session };
    try {
      const runtime = await registry.load(threadId, caller);
      return { session: runtime.session, runtime };
    } catch (error) {
      if (isWireError(error, "threadLockedElsewhere")) return { session };
      throw error;
    }
  }

  async resume(params: ThreadResumeParams, caller: Caller): Promise<ThreadResumeResult> {
    await this.locate(params.threadId);
    const registry = this.host.registry;
    const runtime = await registry.load(params.threadId, caller, params.mcpServers);
    // a loaded thread whose worktree was removed meanwhile gets it back as well
    const worktreeWarnings = await reopenThreadWorktree(runtime.session.header.worktree);
    const resources = await threadResources(runtime, this.host.agentDir);
    // Resuming a thread already loaded with other client servers switches to the new ones.
    const mcpWarnings =
      params.mcpServers !== undefined && runtime.mcp && runtime.mcp.clientServers !== params.mcpServers
        ? await runtime.mcp.setClientServers(params.mcpServers)
        : [];
    // a broken models.json or auth.json is as current for a resumed thread as for a new one
    const configWarnings = newWarnings(runtime.loadWarnings, (await this.host.models.warnings?.()) ?? []);
    runtime.assertOpen();
    // From here to the return nothing awaits: history, snapshots and the subscription share one send step.
    const result: Omit<ThreadResumeResult, "turns"> = {
      thread: runtime.thread(),
      queue: runtime.queueState(),
      usage: runtime.usage(this.host.compaction.contextTokens(runtime)),
      warnings: [...runtime.loadWarnings, ...configWarnings, ...worktreeWarnings, ...mcpWarnings],
      ...extensionFlagsOf(runtime),
      resources,
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
      registry.maybeIdle(runtime);
      throw error;
    }
    // a reconnecting client gets what it missed first, in order, before anything live
    const replay = replayGap(runtime.replay, params.replay, (entry) =>
      this.host.emit({
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
  }

  async read(params: ThreadReadParams): Promise<ThreadReadResult> {
    const registry = this.host.registry;
    const loaded = registry.threads.get(params.threadId);
    const { session, archived } = await this.sourceSession(params.threadId);
    const thread = loaded
      ? loaded.thread()
      : unloadedThread(session, archived, registry.statusOf(session.id));
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
  }

  async list(params: ThreadListParams, caller: Caller): Promise<ThreadListResult> {
    const page = await this.lister.list({
      dirs: await this.host.dirs.listingDirs(caller, params.cwd),
      ...(params.archived !== undefined ? { archived: params.archived } : {}),
      ...(params.cwd !== undefined ? { cwd: params.cwd } : {}),
      ...(params.limit !== undefined ? { limit: params.limit } : {}),
      ...(params.cursor !== undefined ? { cursor: params.cursor } : {}),
    });
    const threads: ThreadSummary[] = page.threads.map((s) => summaryOf(s, this.host.registry.statusOf(s.id)));
    return page.nextCursor !== undefined ? { threads, nextCursor: page.nextCursor } : { threads };
  }
}

/** The warnings of `fresh` that `shown` lacks (a thread started in this process has its start's). */
function newWarnings(shown: readonly Warning[], fresh: readonly Warning[]): Warning[] {
  return fresh.filter((w) => !shown.some((s) => s.message === w.message && s.path === w.path));
}
