/**
 * One loaded thread: its owned session file, subscribers, settings, admission, queue,
 * approvals and status. Turn execution lives in `turn-runner.ts`; this file holds the
 * state both it and the manager read, and the rules for reporting it.
 */
import type { AnyAgentTool } from "@knightcode/agent";
import type { Model } from "@knightcode/ai";
import {
  AppServerError,
  type ModelRef,
  type QueueState,
  type ServerNotification,
  type Thread,
  type ThreadStatus,
  type TokenUsage,
} from "@knightcode/app-server-protocol";
import { emptyGrants, type SessionGrants } from "@knightcode/approvals/session-grants";
import {
  type AppendOptions,
  isArchivedPath,
  isSessionWorktree,
  type NewEntry,
  type SessionEntry,
  type SessionFile,
} from "@knightcode/session-store";
import type { ThreadManagerEvent } from "../api.ts";
import type { CheckpointStore } from "../checkpoints/checkpoint-store.ts";
import type { TurnCheckpoints } from "../checkpoints/turn-checkpoints.ts";
import type { Clock, ClockTimer } from "../clock.ts";
import type { DialogBroker } from "../extensions/extension-dialogs.ts";
import type { ExtensionHost } from "../extensions/extension-hooks.ts";
import { BranchProjection } from "../history/branch-projection.ts";
import { contentText } from "../history/message-content.ts";
import type { Warning } from "../shapes.ts";
import type { ThreadPort, ThreadSettings } from "../thread-port.ts";
import type { McpToolSource } from "../tools/mcp-source.ts";
import type { ThreadToolBackend } from "../tools/tool-backend.ts";
import { collectTools, type ThreadToolSource } from "../tools/tool-sources.ts";
import type { ApprovalBroker } from "../turns/approval-broker.ts";
import { tokenUsage } from "../turns/token-usage.ts";
import type { PendingStart, QueuedInput, Turn } from "../turns/turn.ts";
import type { TurnPort } from "../turns/turn-port.ts";
import { isStoreError, StaleRuntimeError } from "../wire-errors.ts";
import { ReplayBuffer, type ReplayLimits } from "./replay-buffer.ts";
import { PromptSourcesCache } from "./system-prompt.ts";

/** What a runtime needs from the manager that owns it. */
export interface RuntimeHost {
  emit(event: ThreadManagerEvent): void;
  /** How much of each thread's stream is kept for reconnects (default `DEFAULT_REPLAY_LIMITS`). */
  replayLimits?: ReplayLimits;
  broker: ApprovalBroker;
  /** Routes extension dialogs to subscribers that show them. */
  dialogs: DialogBroker;
  clock: Clock;
  resolveModel(ref: ModelRef | undefined): Promise<Model | undefined>;
  /** Called when the thread may have become idle (no subscriber, no work). */
  maybeIdle(runtime: ThreadRuntime): void;
  /** Every thread's `/undo` checkpoints. */
  checkpoints: CheckpointStore;
  /** The session's lock was lost: close the thread. */
  ownershipLost(runtime: ThreadRuntime, error: Error): void;
  /**
   * Why a closed runtime refuses work: deleted (`threadNotFound`), shutting down, ownership
   * lost. Undefined when it was merely unloaded (idle, archived): the thread may be loaded again.
   */
  closedError?(runtime: ThreadRuntime): AppServerError | undefined;
  /** Backpressure of these connections' output (see `ServerRequestPort.outputReady`). */
  outputReady?(connectionIds: readonly string[]): Promise<void> | undefined;
}

export type { ThreadSettings };

/** A loaded, owned thread. */
export class ThreadRuntime implements ThreadPort {
  readonly subscribers: string[] = [];
  /** Sends what the thread's extensions display to a connection that just subscribed. */
  replayDisplay: (connectionId: string) => void = () => {};
  readonly queue: QueuedInput[] = [];
  /** Non-shell tool names and shell prefixes accepted for this load, never across loads. */
  grants: SessionGrants = emptyGrants();
  /** Why admission is held (a turn, a start in its hooks, a settings change), or undefined when free. */
  admittedFor: string | undefined;
  pendingStart: PendingStart | undefined;
  running: Turn | undefined;
  /** Cached model for usage reports. */
  model: Model | undefined;
  closed = false;
  /** Merged project settings read at load (compaction settings, defaults). */
  projectSettings: Record<string, unknown> = {};
  /** Whether the project is trusted, read at load. */
  trusted = false;
  /** The providers this thread's extensions registered with the shared model source. */
  providerNames: ReadonlySet<string> = new Set();
  /** The project's real path as trust was decided for it at load (see `ProjectSettings.projectDir`). */
  projectDir = "";
  /** Global and trusted project settings as read at load, for resource discovery. */
  settingsSources: { global: Record<string, unknown> | null; project: Record<string, unknown> | null } = {
    global: null,
    project: null,
  };
  idleTimer: ClockTimer | undefined;
  /** The operations this thread's tools and `!` commands act through, chosen at load. */
  tools: ThreadToolBackend = {
    ops: undefined,
    sandbox: { mode: "off", network: "on" },
    warnings: [],
    dispose: async () => {},
  };
  /** Per-thread tools beyond the environment's (MCP servers first, then the manager's sources). */
  toolSources: ThreadToolSource[] = [];
  /** The thread's MCP servers, also among `toolSources`. */
  mcp: McpToolSource | undefined;
  /** Context files and SYSTEM.md / APPEND_SYSTEM.md, read once per load (a reload is a new runtime). */
  readonly promptSources = new PromptSourcesCache();
  /** The system prompt the last turn used (`ctx.getSystemPrompt()`). */
  lastSystemPrompt = "";
  private lastStatus = "";
  /** What this thread's turns are given; they never see the runtime. */
  readonly port: TurnPort;
  /** The current branch's model messages and context size, kept per leaf. */
  readonly projection: BranchProjection;
  private replayBuffer: ReplayBuffer | undefined;

  constructor(
    readonly session: SessionFile,
    readonly host: RuntimeHost,
    public extensions: ExtensionHost,
    public settings: ThreadSettings,
    readonly loadWarnings: Warning[],
    readonly clientMode: "desktop" | "terminal",
  ) {
    this.projection = new BranchProjection(session);
    this.port = this.turnPort();
  }

  get id(): string {
    return this.session.id;
  }

  get cwd(): string {
    return this.session.header.cwd;
  }

  get checkpoints(): TurnCheckpoints {
    return this.host.checkpoints.of(this.id, this.cwd);
  }

  /** Adds a subscriber (moving it to most recent); true when it was new. */
  subscribe(connectionId: string): boolean {
    const at = this.subscribers.indexOf(connectionId);
    if (at >= 0) this.subscribers.splice(at, 1);
    this.subscribers.push(connectionId);
    this.host.broker.note({ type: "subscribed", threadId: this.id, connectionId });
    this.host.dialogs.note({ type: "subscribed", threadId: this.id, connectionId });
    this.idleTimer?.cancel();
    this.idleTimer = undefined;
    if (at < 0) this.replayDisplay(connectionId);
    return at < 0;
  }

  /** Removes a subscriber; its open approvals migrate. False when it was not subscribed. */
  unsubscribe(connectionId: string): boolean {
    const at = this.subscribers.indexOf(connectionId);
    if (at < 0) return false;
    this.subscribers.splice(at, 1);
    this.host.broker.note({ type: "unsubscribed", threadId: this.id, connectionId });
    this.host.dialogs.note({ type: "unsubscribed", threadId: this.id, connectionId });
    this.host.maybeIdle(this);
    return true;
  }

  /** Records who initiated work, for approval routing. */
  noteInitiator(connectionId: string): void {
    this.host.broker.note({ type: "initiated", threadId: this.id, connectionId });
    this.host.dialogs.note({ type: "initiated", threadId: this.id, connectionId });
  }

  /** Busy: a turn runs, a start is in its hooks, or settings/compaction hold admission. */
  get busy(): boolean {
    return this.admittedFor !== undefined;
  }

  /**
   * Refuses work on a runtime closed since it was looked up: a request that awaited
   * (images, the model) may find its thread deleted, shut down, lost or unloaded.
   */
  assertOpen(): void {
    if (!this.closed) return;
    throw this.host.closedError?.(this) ?? new StaleRuntimeError(this.id);
  }

  /** Takes admission or refuses with `turnInProgress` (a closed runtime: see `assertOpen`). */
  admit(reason: string): void {
    this.assertOpen();
    if (this.admittedFor !== undefined) {
      throw new AppServerError("turnInProgress", `Thread ${this.id} is busy (${this.admittedFor})`);
    }
    this.admittedFor = reason;
    this.publishStatus();
  }

  release(): void {
    this.admittedFor = undefined;
    this.publishStatus();
    this.host.maybeIdle(this);
  }

  status(): ThreadStatus {
    if (this.admittedFor !== undefined) {
      return { type: "active", waitingOn: this.host.broker.waiting(this.id) ? ["approval"] : [] };
    }
    return { type: "idle" };
  }

  /** Broadcasts `thread/status/changed` when the status object changed. */
  publishStatus(): void {
    if (this.closed) return;
    const status = this.status();
    const key = JSON.stringify(status);
    if (key === this.lastStatus) return;
    this.lastStatus = key;
    this.toEveryone({ method: "thread/status/changed", params: { threadId: this.id, status } });
  }

  /** The thread's numbered stream (see `ReplayBuffer`); made on first use. */
  get replay(): ReplayBuffer {
    this.replayBuffer ??= new ReplayBuffer(this.host.replayLimits);
    return this.replayBuffer;
  }

  /** Numbered and kept for a reconnect even while nobody is subscribed. */
  toSubscribers(notification: ServerNotification): void {
    const seq = this.replay.record(notification);
    if (this.subscribers.length === 0) return;
    this.host.emit({ audience: "connections", connectionIds: [...this.subscribers], notification, seq });
  }

  toEveryone(notification: ServerNotification): void {
    const seq = this.replay.record(notification);
    this.host.emit({ audience: "everyone", notification, seq });
  }

  /** A turn's tools: the environment's `base`, then the thread's tool sources'. */
  withSourceTools(base: readonly AnyAgentTool[]): Promise<AnyAgentTool[]> {
    return collectTools(base, this.toolSources, (w) => this.warn(w));
  }

  /** An extension warning: subscribers only, with the thread ID. */
  warn(warning: Warning): void {
    this.toSubscribers({ method: "warning", params: { ...warning, threadId: this.id } });
  }

  /** Appends an entry (under a reserved `options.id` if given); a lost lock closes the thread instead of writing on. */
  append(entry: NewEntry, options: AppendOptions = {}): SessionEntry {
    try {
      return this.session.append(entry, options);
    } catch (error) {
      throw this.lockLost(error);
    }
  }

  /** Durability point at turn boundaries. */
  sync(): void {
    try {
      this.session.sync();
    } catch (error) {
      throw this.lockLost(error);
    }
  }

  /**
   * The turn-end durability point off the main thread: the lock is checked now (a lost
   * one closes the thread and throws, as `sync` does), the fsync runs on the thread pool
   * and nobody waits for it but unload. Its failure is logged; like an inline fsync's at a
   * turn's end, it changes nothing the client has been told.
   */
  syncInBackground(): void {
    let done: Promise<void>;
    try {
      done = this.session.syncInBackground();
    } catch (error) {
      throw this.lockLost(error);
    }
    done.catch((error: unknown) => {
      process.stderr.write(`[thread-manager] fsync of ${this.session.path} failed: ${String(error)}\n`);
    });
  }

  /** A write failed: when the lock was lost, the thread closes. The error goes on either way. */
  private lockLost(error: unknown): unknown {
    if (isStoreError(error, "ownershipLost")) this.host.ownershipLost(this, error);
    return error;
  }

  queueState(): QueueState {
    return {
      steering: [...(this.running?.steering ?? [])],
      followUp: this.queue.map((q) => ({ id: q.id, text: q.text })),
    };
  }

  publishQueue(): void {
    this.toSubscribers({ method: "turn/queue/updated", params: { threadId: this.id, ...this.queueState() } });
  }

  /** Cumulative usage, with the context size when the projection knows it. */
  usage(contextTokens?: number): TokenUsage {
    return tokenUsage(this.projection.usageTotals(), this.model?.contextWindow ?? 0, contextTokens);
  }

  private turnPort(): TurnPort {
    const runtime = this;
    return {
      threadId: this.id,
      cwd: this.cwd,
      clock: this.host.clock,
      get closed() {
        return runtime.closed;
      },
      hooks: () => this.extensions.hooks,
      append: (entry, options) => this.append(entry, options),
      sync: () => this.sync(),
      syncInBackground: () => this.syncInBackground(),
      context: () => this.projection.messages(),
      send: (notification) => this.toSubscribers(notification),
      broadcast: (notification) => this.toEveryone(notification),
      warn: (warning) => this.warn(warning),
      usage: (contextTokens) => this.usage(contextTokens),
      sourceTools: (base) => this.withSourceTools(base),
      get hasToolSources() {
        return runtime.toolSources.length > 0;
      },
      approvals: {
        broker: this.host.broker,
        mode: () => this.settings.approvalMode,
        get grants() {
          return runtime.grants;
        },
        set grants(grants: SessionGrants) {
          runtime.grants = grants;
        },
      },
      outputReady: () => this.host.outputReady?.(this.subscribers),
      queueChanged: () => this.publishQueue(),
      ended: (turn) => {
        if (this.running === turn) this.running = undefined;
      },
      release: () => this.release(),
    };
  }

  /** The thread object with live status and settings. */
  thread(): Thread {
    const header = this.session.header;
    const entries = this.session.entries;
    const last = entries.at(-1);
    const title = this.session.name ?? firstUserText(entries);
    const thread: Thread = {
      id: header.id,
      cwd: header.cwd,
      createdAt: header.timestamp,
      updatedAt: last ? last.timestamp : header.timestamp,
      archived: isArchivedPath(this.session.realPath),
      status: this.status(),
      path: this.session.path,
      thinkingLevel: this.settings.thinkingLevel,
      approvalMode: this.settings.approvalMode,
    };
    if (title !== undefined) thread.title = title;
    if (this.session.name !== undefined) thread.name = this.session.name;
    if (header.forkedFromId !== undefined) thread.forkedFromId = header.forkedFromId;
    if (isSessionWorktree(header.worktree)) thread.worktree = header.worktree;
    if (this.settings.model) thread.model = this.settings.model;
    thread.sandbox = this.tools.sandbox;
    return thread;
  }
}

/** Longest title derived from the first user message. */
export const TITLE_LIMIT = 200;

/** The first user text of a transcript, bounded, for titles. */
export function firstUserText(entries: readonly SessionEntry[]): string | undefined {
  for (const entry of entries) {
    if (entry.type === "message" && entry.message.role === "user") {
      const text = contentText(entry.message.content).trim();
      if (text) return text.length > TITLE_LIMIT ? text.slice(0, TITLE_LIMIT) : text;
    }
  }
  return undefined;
}

/**
 * The runtime behind a thread handed out as a `ThreadPort` (every port the manager hands
 * out is one); for the callbacks that come back to the registry and the manager.
 */
export function runtimeOf(thread: ThreadPort): ThreadRuntime {
  if (!(thread instanceof ThreadRuntime)) throw new Error(`Thread ${thread.id} is not a loaded runtime`);
  return thread;
}
