/**
 * One loaded thread: its owned session file, subscribers, settings, admission, queue,
 * approvals and status. Turn execution lives in `turn-runner.ts`; this file holds the
 * state both it and the manager read, and the rules for reporting it.
 */
import type { AnyAgentTool } from "@knightcode/agent";
import type { ImageContent, Model, UserMessage } from "@knightcode/ai";
import {
  type ApprovalMode,
  AppServerError,
  type ModelRef,
  type QueueState,
  type ServerNotification,
  type ThinkingLevel,
  type Thread,
  type ThreadStatus,
  type TokenUsage,
} from "@knightcode/app-server-protocol";
import { emptyGrants, type SessionGrants } from "@knightcode/approvals/session-grants";
import {
  type AppendOptions,
  type CustomMessage,
  isArchivedPath,
  type NewEntry,
  type SessionEntry,
  type SessionFile,
} from "@knightcode/session-store";
import type { ThreadManagerEvent } from "../api.ts";
import type { Clock, ClockTimer } from "../clock.ts";
import type { DialogBroker } from "../extensions/extension-dialogs.ts";
import type { ExtensionHost } from "../extensions/extension-hooks.ts";
import { contentText } from "../history/history-projection.ts";
import type { Warning } from "../shapes.ts";
import type { McpToolSource } from "../tools/mcp-source.ts";
import type { ThreadToolBackend } from "../tools/tool-backend.ts";
import { collectTools, type ThreadToolSource } from "../tools/tool-sources.ts";
import type { ApprovalBroker } from "../turns/approval-broker.ts";
import type { LiveTurn } from "../turns/live-turn.ts";
import { cumulativeUsage } from "../turns/token-usage.ts";
import { PromptSourcesCache } from "./system-prompt.ts";

/** An input waiting in the server-side queue. */
export interface QueuedInput {
  id: string;
  text: string;
  images: ImageContent[];
  clientMessageId?: string;
  initiator: string;
}

/** A start still in its input hooks; interrupt marks it cancelled. */
export interface PendingStart {
  cancelled: boolean;
  /** Aborted with the cancel: extension dialogs opened by the hooks or the command close. */
  controller: AbortController;
}

/** The turn running now. */
export interface RunningTurn {
  live: LiveTurn;
  controller: AbortController;
  interrupted: boolean;
  /** Steers still in interception: settlement rejects them with `invalidParams`. */
  interceptedSteers: Set<(error: AppServerError) => void>;
  /** Steers handed to the agent and not yet delivered, in order. */
  steering: string[];
  /** Call IDs refused at the approval gate, and how. */
  refusedCalls: Map<string, "declined" | "cancelled">;
  /** Steers accepted before the agent exists; they join its first request. */
  early: UserMessage[];
  /** Hands an accepted steer to the run (held until the agent exists). */
  deliverSteer: (text: string, images: ImageContent[]) => void;
  /** Aborts the agent's run: provider request, tools, approvals. */
  abortAgent?: () => void;
  /** Set once the run ended; steers now fail instead of landing in a later turn. */
  settling: boolean;
  /**
   * Hooks dispatched without blocking the agent (`turn_end`) and still running. They keep
   * the turn's admission: settlement waits for them before `agent_end` and the release.
   */
  deferredHooks: Set<Promise<void>>;
  /** Resolves when the turn has settled. */
  done: Promise<void>;
  /** Extension messages (`sendMessage` while running) that join the context at the next model request. */
  pendingCustomMessages: Omit<CustomMessage, "role" | "timestamp">[];
}

/** What a runtime needs from the manager that owns it. */
export interface RuntimeHost {
  emit(event: ThreadManagerEvent): void;
  broker: ApprovalBroker;
  /** Routes extension dialogs to subscribers that show them. */
  dialogs: DialogBroker;
  clock: Clock;
  resolveModel(ref: ModelRef | undefined): Promise<Model | undefined>;
  /** Called when the thread may have become idle (no subscriber, no work). */
  maybeIdle(runtime: ThreadRuntime): void;
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

/** Work reached a runtime unloaded since the thread was looked up; a fresh lookup loads it again. */
export class StaleRuntimeError extends AppServerError {
  constructor(threadId: string) {
    super("internal", `Thread ${threadId} was unloaded while the request waited`);
  }
}

/** The branch-persisted settings of a thread. */
export interface ThreadSettings {
  model: ModelRef | undefined;
  thinkingLevel: ThinkingLevel;
  approvalMode: ApprovalMode;
}

/** A loaded, owned thread. */
export class ThreadRuntime {
  readonly subscribers: string[] = [];
  /** Sends what the thread's extensions display to a connection that just subscribed. */
  replayDisplay: (connectionId: string) => void = () => {};
  readonly queue: QueuedInput[] = [];
  /** Non-shell tool names and shell prefixes accepted for this load, never across loads. */
  grants: SessionGrants = emptyGrants();
  /** Why admission is held (a turn, a start in its hooks, a settings change), or undefined when free. */
  admittedFor: string | undefined;
  pendingStart: PendingStart | undefined;
  running: RunningTurn | undefined;
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

  constructor(
    readonly session: SessionFile,
    readonly host: RuntimeHost,
    public extensions: ExtensionHost,
    public settings: ThreadSettings,
    readonly loadWarnings: Warning[],
    readonly clientMode: "desktop" | "terminal",
  ) {}

  get id(): string {
    return this.session.id;
  }

  get cwd(): string {
    return this.session.header.cwd;
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

  toSubscribers(notification: ServerNotification): void {
    if (this.subscribers.length === 0) return;
    this.host.emit({ audience: "connections", connectionIds: [...this.subscribers], notification });
  }

  toEveryone(notification: ServerNotification): void {
    this.host.emit({ audience: "everyone", notification });
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
      if ((error as { code?: string }).code === "ownershipLost")
        this.host.ownershipLost(this, error as Error);
      throw error;
    }
  }

  /** Durability point at turn boundaries. */
  sync(): void {
    try {
      this.session.sync();
    } catch (error) {
      if ((error as { code?: string }).code === "ownershipLost")
        this.host.ownershipLost(this, error as Error);
      throw error;
    }
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
    return cumulativeUsage(this.session.branch(), this.model?.contextWindow ?? 0, contextTokens);
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
