/**
 * What a running turn may do to its thread, and nothing more: write and sync entries,
 * send to the thread's subscribers (and everyone), warn, read the clock, the hooks of the
 * thread's extensions, its tool sources, and ask its approvals. The thread builds one
 * port at load (`ThreadRuntime.port`); a turn never sees the runtime behind it.
 */
import type { AnyAgentTool } from "@knightcode/agent";
import type { Message } from "@knightcode/ai";
import type { ApprovalMode, ServerNotification, TokenUsage } from "@knightcode/app-server-protocol";
import type { SessionGrants } from "@knightcode/approvals/session-grants";
import type { AppendOptions, NewEntry, SessionEntry } from "@knightcode/session-store";
import type { Clock } from "../clock.ts";
import type { ExtensionHooks } from "../extensions/extension-hooks.ts";
import type { Warning } from "../shapes.ts";
import type { ApprovalBroker } from "./approval-broker.ts";

/** The approvals a turn's tool calls pass: the thread's mode and this load's grants, and who to ask. */
export interface TurnApprovals {
  readonly broker: ApprovalBroker;
  mode(): ApprovalMode;
  /** Grants accepted for this load; a turn's answers replace them. */
  grants: SessionGrants;
}

/** The thread as one turn sees it. */
export interface TurnPort {
  readonly threadId: string;
  readonly cwd: string;
  readonly clock: Clock;
  /** Whether the thread closed (deleted, unloaded, lost): nothing more is written. */
  readonly closed: boolean;
  /** The hooks of the thread's extensions now (a `/reload` replaces them). */
  hooks(): ExtensionHooks;
  /** Appends an entry (a lost lock closes the thread and throws). */
  append(entry: NewEntry, options?: AppendOptions): SessionEntry;
  /** Durability point at a turn boundary. */
  sync(): void;
  /** The same, its fsync on the thread pool: the lock is checked now, nobody waits for the disk. */
  syncInBackground(): void;
  /** The model's view of the thread's current branch. */
  context(): Message[];
  /** To the thread's subscribers. */
  send(notification: ServerNotification): void;
  /** To every connection. */
  broadcast(notification: ServerNotification): void;
  warn(warning: Warning): void;
  /** The thread's cumulative usage, with the context size when known. */
  usage(contextTokens?: number): TokenUsage;
  /** The tool sources: a turn's tools with the thread's sources' added (asked before every request). */
  sourceTools(base: readonly AnyAgentTool[]): Promise<AnyAgentTool[]>;
  /** Whether the thread has tool sources at all (none: the tool list never changes mid-turn). */
  readonly hasToolSources: boolean;
  readonly approvals: TurnApprovals;
  /** Backpressure of the subscribers' output (see `ServerRequestPort.outputReady`). */
  outputReady(): Promise<void> | undefined;
  /** The queue state changed (a steer joined or left): subscribers get `turn/queue/updated`. */
  queueChanged(): void;
  /** The turn has ended: it stops being the thread's running turn. */
  ended(turn: object): void;
  /** Releases the admission the turn held. */
  release(): void;
}
