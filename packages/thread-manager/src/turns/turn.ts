/**
 * One turn of a thread, from its durable start marker to its settlement, and the inputs
 * on their way to becoming one. The `Turn` owns its state: the live items, the abort
 * signal, the steers in flight (intercepted by input hooks, held until the agent exists,
 * handed to the agent), refused calls, hooks still running and extension messages waiting
 * for the next request. Steers and interrupts reach the run only through its methods;
 * the agent attaches once (`attach`) and nothing from outside swaps its behaviour.
 */
import type { ImageContent, UserMessage } from "@knightcode/ai";
import { AppServerError } from "@knightcode/app-server-protocol";
import type { AgentMessage, CustomMessage, SessionEntry } from "@knightcode/session-store";
import type { Caller } from "../api.ts";
import type { WorkingTree } from "../checkpoints/turn-checkpoints.ts";
import { userMessage } from "../history/message-content.ts";
import type { FileChange } from "../shapes.ts";
import { LiveTurn } from "./live-turn.ts";
import type { TurnPort } from "./turn-port.ts";

/** An input waiting in the thread's server-side queue. */
export interface QueuedInput {
  id: string;
  text: string;
  images: ImageContent[];
  clientMessageId?: string;
  initiator: string;
}

/** A start (or command) still in its input hooks; interrupt marks it cancelled. */
export interface PendingStart {
  cancelled: boolean;
  /** Aborted with the cancel: extension dialogs opened by the hooks or the command close. */
  controller: AbortController;
  /** Who ran the command (an extension's `ctx.newSession()` moves this client first). */
  caller?: Caller;
  /** An extension command replaced the session (`ctx.newSession()`, `ctx.fork()`). */
  replacedBy?: { reason: "new" | "fork"; threadId: string; path: string };
}

/** What a running turn needs of its agent: steers join it, an interrupt aborts it. */
export interface SteerableAgent {
  steer(message: UserMessage): void;
  abort(): void;
}

/** An extension message (`sendMessage` while running) waiting for the next model request. */
export type PendingCustomMessage = Omit<CustomMessage, "role" | "timestamp">;

/** The `/undo` checkpoint of a turn: tools wait until it is taken; their reported changes go to it. */
export interface TurnCheckpoint {
  readonly taken: Promise<void>;
  /** The working files without ignored ones as the checkpoint's walk found them (turn diffs' start). */
  readonly workingTree: Promise<WorkingTree | undefined>;
  noteChanges(changes: readonly FileChange[]): void;
}

/** The running turn of a thread. */
export class Turn {
  readonly live: LiveTurn;
  readonly controller = new AbortController();
  /** Call IDs refused at the approval gate, and how. */
  readonly refusedCalls = new Map<string, "declined" | "cancelled">();
  /** Extension messages that join the context at the next model request. */
  readonly pendingCustomMessages: PendingCustomMessage[] = [];
  /** Resolves when the turn has settled. */
  done: Promise<void> = Promise.resolve();
  /** Set as the turn opens; undefined for a turn that takes none. */
  checkpoint: TurnCheckpoint | undefined;
  private interruptedFlag = false;
  private settlingFlag = false;
  /** Steers still in interception: settlement and interrupts reject them. */
  private readonly interceptedSteers = new Set<(error: AppServerError) => void>();
  /** Steers handed to the run and not yet delivered, in order (as `turn/queue/updated` shows them). */
  private steeringTexts: string[] = [];
  /** Steers accepted before the agent exists; they join its first request. */
  private readonly early: UserMessage[] = [];
  private agent: SteerableAgent | undefined;
  /**
   * Hooks dispatched without blocking the agent (`turn_end`) and still running. They keep
   * the turn's admission: settlement waits for them before `agent_end` and the release.
   */
  private readonly deferredHooks = new Set<Promise<void>>();
  /** The messages of the agent runs since the last `agent_end` (pi's `event.messages`). */
  private runMessages: AgentMessage[] = [];

  private constructor(
    private readonly port: TurnPort,
    start: Extract<SessionEntry, { type: "turn_start" }>,
    clientMessageId: string | undefined,
  ) {
    this.live = new LiveTurn(port.threadId, start, clientMessageId, (n) => {
      if (n.method === "item/completed" && n.params.item.type === "toolCall" && n.params.item.fileChanges)
        this.checkpoint?.noteChanges(n.params.item.fileChanges);
      port.send(n);
    });
  }

  /**
   * Writes the durable start marker and makes the turn; the caller holds admission and
   * announces it (`announce`) once it is the thread's running turn.
   */
  static open(port: TurnPort, clientMessageId: string | undefined): Turn {
    const start = port.append({ type: "turn_start", startedAt: port.clock.now() });
    if (start.type !== "turn_start") throw new Error("unreachable");
    return new Turn(port, start, clientMessageId);
  }

  get id(): string {
    return this.live.id;
  }

  get interrupted(): boolean {
    return this.interruptedFlag;
  }

  /** Set once the run ended; steers now fail instead of landing in a later turn. */
  get settling(): boolean {
    return this.settlingFlag;
  }

  /** Whether steers are still accepted (not interrupted, not settling). */
  get accepting(): boolean {
    return !this.interruptedFlag && !this.settlingFlag;
  }

  get steering(): readonly string[] {
    return this.steeringTexts;
  }

  /** `turn/started` to the thread's subscribers. */
  announce(requestId: string | undefined): void {
    const start = this.live.turnStart;
    this.port.send({
      method: "turn/started",
      params: {
        threadId: this.port.threadId,
        turn: { id: start.id, status: "inProgress", startedAt: start.startedAt },
        ...(requestId !== undefined ? { requestId } : {}),
      },
    });
  }

  /**
   * Runs a steer's input hooks as part of this turn: if the turn is interrupted or settles
   * first, the steer fails with `invalidParams` instead of waiting.
   */
  intercept<T>(run: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.interceptedSteers.add(reject);
      run().then((value) => {
        this.interceptedSteers.delete(reject);
        resolve(value);
      }, reject);
    });
  }

  /** Hands an accepted steer to the run: the agent's queue, or held for its first request. */
  steer(text: string, images: ImageContent[]): void {
    const message = userMessage(text, images, this.port.clock.now());
    if (this.agent) {
      this.agent.steer(message);
      return;
    }
    // Before the agent exists (compaction, before_agent_start) steers wait and join the first request.
    this.early.push(message);
    this.steeringTexts.push(text);
    this.port.queueChanged();
  }

  /** The agent's own steering queue changed; `texts` is what it still holds. */
  steeringChanged(texts: string[]): void {
    this.steeringTexts = texts;
    this.port.queueChanged();
  }

  /** The agent now runs the turn: held steers join it, and an interrupt aborts it. */
  attach(agent: SteerableAgent): void {
    this.agent = agent;
    for (const message of this.early.splice(0)) agent.steer(message);
  }

  /** Interrupts the turn: steers in interception fail, the signal and the agent abort. False when already interrupted. */
  interrupt(): boolean {
    if (this.interruptedFlag) return false;
    this.interruptedFlag = true;
    this.rejectIntercepted("The turn was interrupted before the steer was accepted");
    this.controller.abort();
    this.agent?.abort();
    return true;
  }

  /** Tracks a hook dispatched without holding the agent; settlement waits for it. */
  defer(settled: Promise<void>): void {
    this.deferredHooks.add(settled);
    void settled.finally(() => this.deferredHooks.delete(settled));
  }

  /** Resolves once every deferred hook, including ones dispatched meanwhile, has finished. */
  async deferredHooksSettled(): Promise<void> {
    while (this.deferredHooks.size > 0) await Promise.all([...this.deferredHooks]);
  }

  /** An agent run ended with these messages (the objects its `turn_end`s carried), in order. */
  agentRan(messages: readonly AgentMessage[]): void {
    this.runMessages.push(...messages);
  }

  /** The messages `agent_end` reports: every run's since the last `agent_end`. */
  takeRunMessages(): AgentMessage[] {
    return this.runMessages.splice(0);
  }

  /**
   * Writes an extension message as part of this turn (before its end marker): persisted,
   * and sent to subscribers as the turn's item like any other entry of the run.
   */
  recordCustomMessage(message: PendingCustomMessage): void {
    const entry = this.port.append({ type: "custom_message", ...message });
    this.live.onEntryPersisted(entry);
  }

  /** The run has ended: later stream events are ignored and steers are refused. */
  beginSettling(): void {
    this.settlingFlag = true;
    this.live.end();
  }

  /** After the settlement hooks: steers still in interception fail. */
  refuseIntercepted(): void {
    this.rejectIntercepted("The turn ended before the steer was accepted");
  }

  /** The turn is over: it leaves the thread and a steering list it still showed is cleared. */
  leave(): void {
    this.port.ended(this);
  }

  /** Clears what the steering list still shows (the turn is no longer the thread's). */
  clearSteering(): void {
    if (this.steeringTexts.length === 0) return;
    this.steeringTexts = [];
    this.port.queueChanged();
  }

  private rejectIntercepted(message: string): void {
    for (const reject of this.interceptedSteers) reject(new AppServerError("invalidParams", message));
    this.interceptedSteers.clear();
  }
}
