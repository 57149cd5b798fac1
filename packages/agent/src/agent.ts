/**
 * The Agent: owns one conversation's context, its steering and follow-up queues, and the
 * abort controller of the run in progress. The thread manager holds one per loaded thread.
 */
import type { Message } from "@knightcode/ai";
import { runAgentLoop } from "./loop.ts";
import type { AgentEvent, AgentListener, AgentOptions, RoleMessage } from "./types.ts";

/** Thrown when a run is requested while another is in progress. */
export class AgentBusyError extends Error {
  constructor() {
    super("The agent is already running; steer, queue a follow-up, or wait for it to finish.");
    this.name = "AgentBusyError";
  }
}

/** Runs the loop over a persistent context; one run at a time. */
export class Agent<M extends RoleMessage = Message> {
  /** Live options: change model, tools, prompt or hooks between (or during) runs. */
  options: AgentOptions<M>;
  readonly #context: (M | Message)[];
  readonly #listeners = new Set<AgentListener<M>>();
  #steering: M[] = [];
  #followUps: M[] = [];
  #controller: AbortController | undefined;
  #running: Promise<void> | undefined;

  constructor(options: AgentOptions<M>) {
    this.options = options;
    this.#context = [...(options.messages ?? [])];
  }

  /** The context as it is now (a live, read-only view). */
  get messages(): readonly (M | Message)[] {
    return this.#context;
  }

  /** Replaces the context (history load, compaction); allowed only while idle. */
  setMessages(messages: readonly (M | Message)[]): void {
    if (this.#running) throw new AgentBusyError();
    this.#context.splice(0, this.#context.length, ...messages);
  }

  /** True while a run is in progress. */
  get isRunning(): boolean {
    return this.#running !== undefined;
  }

  /** Subscribes to events; returns the unsubscribe function. */
  subscribe(listener: AgentListener<M>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts a run with these messages; resolves when it ends. */
  prompt(messages: M | readonly M[]): Promise<void> {
    const list = Array.isArray(messages) ? (messages as readonly M[]) : [messages as M];
    return this.#start(list);
  }

  /** Starts a run from the current context (after a failure, or with only queued messages). */
  continue(): Promise<void> {
    return this.#start([]);
  }

  /** Delivers a message to the running model after the current tool batch, before the next model call. */
  steer(message: M): void {
    this.#steering.push(message);
    this.#emitQueue();
  }

  /** Queues a message to run when the agent would otherwise stop. */
  followUp(message: M): void {
    this.#followUps.push(message);
    this.#emitQueue();
  }

  /** Messages waiting: steers not yet delivered, follow-ups not yet started. */
  getQueue(): { steering: M[]; followUp: M[] } {
    return { steering: [...this.#steering], followUp: [...this.#followUps] };
  }

  /** Removes and returns the undelivered steers. */
  clearSteering(): M[] {
    const taken = this.#steering;
    this.#steering = [];
    if (taken.length > 0) this.#emitQueue();
    return taken;
  }

  /** Removes and returns the queued follow-ups. */
  clearFollowUps(): M[] {
    const taken = this.#followUps;
    this.#followUps = [];
    if (taken.length > 0) this.#emitQueue();
    return taken;
  }

  /** Aborts the run in progress: provider request, running tools and their processes. */
  abort(reason?: unknown): void {
    this.#controller?.abort(reason);
  }

  /** Resolves when no run is in progress. */
  async waitForIdle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  #start(prompts: readonly M[]): Promise<void> {
    if (this.#running) return Promise.reject(new AgentBusyError());
    const controller = new AbortController();
    this.#controller = controller;
    const host = {
      options: this.options,
      context: this.#context,
      takeSteering: () => this.#take("steering"),
      takeFollowUps: () => this.#take("followUp"),
      hasSteering: () => this.#steering.length > 0,
      emit: (event: AgentEvent<M>) => this.#emit(event),
    };
    // State is cleared before the caller's await resumes, so it can start the next run at once.
    const run = runAgentLoop(host, prompts, controller.signal)
      .finally(() => {
        this.#running = undefined;
        this.#controller = undefined;
      })
      .then(() => undefined);
    // The caller sees a loop bug as a rejection; waitForIdle never does.
    this.#running = run.catch(() => undefined);
    return run;
  }

  #take(which: "steering" | "followUp"): M[] {
    const queue = which === "steering" ? this.#steering : this.#followUps;
    if (queue.length === 0) return [];
    const mode = which === "steering" ? this.options.steeringMode : this.options.followUpMode;
    const taken = mode === "one-at-a-time" ? queue.splice(0, 1) : queue.splice(0);
    this.#emitQueue();
    return taken;
  }

  #emitQueue(): void {
    this.#emit({ type: "queue_update", steering: [...this.#steering], followUp: [...this.#followUps] });
  }

  #emit(event: AgentEvent<M>): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        // A broken subscriber must not take the run down with it.
        process.stderr.write(
          `[agent] listener failed: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      }
    }
  }
}
