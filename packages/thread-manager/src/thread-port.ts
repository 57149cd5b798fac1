/**
 * A loaded thread as the modules that work on it see it: the turn methods, the queue,
 * commands, compaction, the session tree and extension dialogs. `ThreadRuntime`
 * (threads/) implements it; nothing outside `threads/` and the manager imports the runtime
 * itself. A running turn sees less still: only its `port` (`turns/turn-port.ts`).
 */
import type { Model } from "@knightcode/ai";
import type {
  ApprovalMode,
  ModelRef,
  ServerNotification,
  ThinkingLevel,
  Thread,
  TokenUsage,
} from "@knightcode/app-server-protocol";
import type { AppendOptions, NewEntry, SessionEntry, SessionFile } from "@knightcode/session-store";
import type { TurnCheckpoints } from "./checkpoints/turn-checkpoints.ts";
import type { ExtensionHost } from "./extensions/extension-hooks.ts";
import type { BranchProjection } from "./history/branch-projection.ts";
import type { Warning } from "./shapes.ts";
import type { PromptSourcesCache } from "./threads/system-prompt.ts";
import type { McpToolSource } from "./tools/mcp-source.ts";
import type { ThreadToolBackend } from "./tools/tool-backend.ts";
import type { PendingStart, QueuedInput, Turn } from "./turns/turn.ts";
import type { TurnPort } from "./turns/turn-port.ts";

/** The branch-persisted settings of a thread. */
export interface ThreadSettings {
  model: ModelRef | undefined;
  thinkingLevel: ThinkingLevel;
  approvalMode: ApprovalMode;
}

/** Where a thread's resources come from, decided at load. */
export interface ThreadResourceSources {
  /** The project's real path as trust was decided for it at load. */
  readonly projectDir: string;
  /** Whether the project is trusted, read at load. */
  readonly trusted: boolean;
  /** Global and trusted project settings as read at load, for resource discovery. */
  readonly settingsSources: {
    global: Record<string, unknown> | null;
    project: Record<string, unknown> | null;
  };
  readonly extensions: ExtensionHost;
}

/** A loaded, owned thread. */
export interface ThreadPort extends ThreadResourceSources {
  readonly id: string;
  readonly cwd: string;
  readonly session: SessionFile;
  /** What the thread's turns are given (`Turn`'s only view of the thread). */
  readonly port: TurnPort;
  /** The current branch's model messages and context size, kept per leaf. */
  readonly projection: BranchProjection;
  readonly subscribers: readonly string[];
  /** How the thread was opened (the client kind of its first load). */
  readonly clientMode: "desktop" | "terminal";
  /** Warnings of the load (extensions, tools), for the answer that opened the thread. */
  readonly loadWarnings: readonly Warning[];
  /** Inputs waiting in the server-side queue, oldest first. */
  readonly queue: QueuedInput[];
  /** A start (or command) in its input hooks. */
  pendingStart: PendingStart | undefined;
  /** The turn running now. */
  running: Turn | undefined;
  readonly settings: ThreadSettings;
  /** The model of the last turn, for usage reports and compaction. */
  model: Model | undefined;
  readonly closed: boolean;
  /** Busy: a turn runs, a start is in its hooks, or settings/compaction hold admission. */
  readonly busy: boolean;
  /** Merged project settings read at load (compaction, retry). */
  readonly projectSettings: Record<string, unknown>;
  /** The operations this thread's tools and `!` commands act through. */
  readonly tools: ThreadToolBackend;
  readonly mcp: McpToolSource | undefined;
  /** Context files and SYSTEM.md / APPEND_SYSTEM.md, read once per load. */
  readonly promptSources: PromptSourcesCache;
  /** The system prompt the last turn used (`ctx.getSystemPrompt()`). */
  lastSystemPrompt: string;
  /** The `/undo` checkpoints of the thread's turns (kept by the manager, across unloads). */
  readonly checkpoints: TurnCheckpoints;
  /** Refuses work on a thread closed since it was looked up. */
  assertOpen(): void;
  /** Takes admission or refuses with `turnInProgress`. */
  admit(reason: string): void;
  release(): void;
  /** Adds a subscriber; true when it was new. */
  subscribe(connectionId: string): boolean;
  /** Removes a subscriber; its open approvals migrate. False when it was not subscribed. */
  unsubscribe(connectionId: string): boolean;
  /** Records who initiated work, for approval routing. */
  noteInitiator(connectionId: string): void;
  append(entry: NewEntry, options?: AppendOptions): SessionEntry;
  sync(): void;
  toSubscribers(notification: ServerNotification): void;
  toEveryone(notification: ServerNotification): void;
  warn(warning: Warning): void;
  publishQueue(): void;
  usage(contextTokens?: number): TokenUsage;
  /** The thread object with live status and settings. */
  thread(): Thread;
}
