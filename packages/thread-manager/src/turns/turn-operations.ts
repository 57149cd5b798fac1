/**
 * The turn methods of the protocol: start, steer, interrupt and the server-side queue.
 * Each validates against the running turn and delegates the run to `turn-runner.ts`.
 */
import type { Model } from "@knightcode/ai";
import {
  AppServerError,
  type ModelRef,
  type ThreadContextReadParams,
  type ThreadContextReadResult,
  type ThreadShellRunParams,
  type ThreadShellRunResult,
  type ThreadUndoParams,
  type ThreadUndoResult,
  type TurnInterruptParams,
  type TurnInterruptResult,
  type TurnQueueAddParams,
  type TurnQueueAddResult,
  type TurnQueueRemoveParams,
  type TurnQueueRemoveResult,
  type TurnStartParams,
  type TurnStartResult,
  type TurnSteerParams,
  type TurnSteerResult,
} from "@knightcode/app-server-protocol";
import type { Caller } from "../api.ts";
import { undoLastTurn } from "../checkpoints/thread-undo.ts";
import { runShellCommand } from "../commands/shell-run.ts";
import { parseSlashCommand } from "../commands/slash-command-parse.ts";
import { runSlashCommand } from "../commands/slash-commands.ts";
import { callHook } from "../extensions/extension-hooks.ts";
import type { ThreadPort } from "../thread-port.ts";
import type { ThreadCreation } from "../threads/thread-creation.ts";
import { resourceContext } from "../tools/mcp-resources.ts";
import { StaleRuntimeError } from "../wire-errors.ts";
import type { TurnEnvironment } from "./environment.ts";
import { resolveImages } from "./image-inputs.ts";
import { abortTurns } from "./turn-abort.ts";
import { drainQueue } from "./turn-queue.ts";
import { startTurn, turnTools } from "./turn-runner.ts";

/** What the turn methods need from the manager. */
export interface TurnHost {
  runtime(threadId: string, caller: Caller): Promise<ThreadPort>;
  loaded(threadId: string): ThreadPort | undefined;
  exists(threadId: string): Promise<boolean>;
  resolveModel(ref: ModelRef | undefined): Promise<Model | undefined>;
  /** `/reload`: loads the thread's extensions again. */
  reloadExtensions?(runtime: ThreadPort): Promise<void>;
  /** A thread replaced by `/new` or `/fork`: its extensions restart, old contexts turn stale. */
  replaced?(runtime: ThreadPort, reason: "new" | "fork", targetSessionFile: string): Promise<void>;
}

function noModel(threadId: string): AppServerError {
  return new AppServerError(
    "invalidParams",
    `Thread ${threadId} has no usable model; pick one with thread/settings/update`,
    { reason: "noModel" },
  );
}

/**
 * Runs a request that looks its thread up; when the thread was unloaded (idle, archive)
 * while the request awaited, before it took anything, it looks the thread up again once.
 * Deletion, shutdown and lost ownership refuse instead (`ThreadPort.assertOpen`).
 */
async function onFreshRuntime<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!(error instanceof StaleRuntimeError)) throw error;
    return attempt();
  }
}

/** Turn methods over the manager's loaded threads. */
export class TurnOperations {
  private nextQueueId = 0;

  constructor(
    private readonly env: TurnEnvironment,
    private readonly host: TurnHost,
    /** Where session-replacing commands create threads; without it `turn/start` runs no built-in command. */
    private readonly commands?: ThreadCreation,
  ) {}

  private async usableModel(runtime: ThreadPort): Promise<Model | undefined> {
    const model = await this.host.resolveModel(runtime.settings.model);
    if (model) runtime.model = model;
    return model;
  }

  start(params: TurnStartParams, caller: Caller): Promise<TurnStartResult> {
    return onFreshRuntime(() => this.startOnce(params, caller));
  }

  /**
   * One attempt. Every await (images, models, hooks) may let a `thread/delete` fence and
   * unload the thread: the checks below sit synchronously before admission, so either
   * this start is admitted first (the delete then refuses with `turnInProgress`) or the
   * runtime is already closed and the start refuses (`threadNotFound` for a deletion).
   */
  private async startOnce(params: TurnStartParams, caller: Caller): Promise<TurnStartResult> {
    const runtime = await this.host.runtime(params.threadId, caller);
    const images = await resolveImages(params.images);
    const context = await resourceContext(runtime.mcp, params.resources);
    runtime.assertOpen();
    if (runtime.busy)
      throw new AppServerError("turnInProgress", `Thread ${runtime.id} is already running a turn`);
    const command = parseSlashCommand(params.text);
    if (command && this.commands) {
      const handled = await runSlashCommand(
        {
          runtime,
          caller,
          command,
          ...(params.requestId !== undefined ? { requestId: params.requestId } : {}),
          ...(params.clientMessageId !== undefined ? { clientMessageId: params.clientMessageId } : {}),
          requireModel: async () => {
            const model = await this.usableModel(runtime);
            if (!model) throw noModel(runtime.id);
            return model;
          },
        },
        {
          env: this.env,
          creation: this.commands,
          ...(this.host.reloadExtensions ? { reloadExtensions: this.host.reloadExtensions } : {}),
          ...(this.host.replaced ? { replaced: this.host.replaced } : {}),
        },
      );
      if (handled) return handled;
    }
    const model = await this.usableModel(runtime);
    runtime.assertOpen();
    if (!model) throw noModel(runtime.id);
    runtime.subscribe(caller.connectionId);
    runtime.noteInitiator(caller.connectionId);
    const status = await startTurn(
      runtime,
      this.env,
      {
        text: params.text,
        images,
        context,
        initiator: caller.connectionId,
        ...(params.clientMessageId !== undefined ? { clientMessageId: params.clientMessageId } : {}),
        ...(params.requestId !== undefined ? { requestId: params.requestId } : {}),
      },
      model,
    );
    return {
      status,
      threadId: runtime.id,
      ...(params.requestId !== undefined ? { requestId: params.requestId } : {}),
    };
  }

  async steer(params: TurnSteerParams, caller: Caller): Promise<TurnSteerResult> {
    const runtime = this.host.loaded(params.threadId);
    if (!runtime && !(await this.host.exists(params.threadId))) {
      throw new AppServerError("threadNotFound", `Thread ${params.threadId} not found`);
    }
    const running = runtime?.running;
    if (
      !runtime ||
      !running ||
      running.settling ||
      running.interrupted ||
      running.live.id !== params.expectedTurnId
    ) {
      throw new AppServerError("turnMismatch", `Turn ${params.expectedTurnId} is not the running turn`, {
        currentTurnId: running && !running.settling ? running.live.id : null,
      });
    }
    const images = await resolveImages(params.images);
    runtime.noteInitiator(caller.connectionId);
    const hook = runtime.extensions.hooks.input;
    let text = params.text;
    let finalImages = images;
    if (hook) {
      // Interception: the steer belongs to this turn; if it settles first the steer fails.
      const outcome = await running.intercept(() =>
        callHook(
          () => hook({ text, images, source: "steer" }),
          { action: "continue" as const },
          (w) => runtime.warn(w),
        ),
      );
      if (!running.accepting) {
        throw new AppServerError("invalidParams", "The turn ended before the steer was accepted");
      }
      if (outcome.action === "handled") return { turnId: running.id };
      text = outcome.text ?? text;
      finalImages = outcome.images ?? finalImages;
    }
    running.steer(text, finalImages);
    return { turnId: running.id };
  }

  async interrupt(params: TurnInterruptParams, _caller: Caller): Promise<TurnInterruptResult> {
    const runtime = this.host.loaded(params.threadId);
    if (!runtime && !(await this.host.exists(params.threadId))) {
      throw new AppServerError("threadNotFound", `Thread ${params.threadId} not found`);
    }
    const running = runtime?.running && !runtime.running.settling ? runtime.running : undefined;
    if (params.turnId !== undefined && running?.live.id !== params.turnId) {
      throw new AppServerError("turnMismatch", `Turn ${params.turnId} is not the running turn`, {
        currentTurnId: running?.live.id ?? null,
      });
    }
    if (!runtime) return {};
    // Queued inputs are dropped, as Escape does; the client still has their text.
    if (runtime.queue.length > 0) {
      runtime.queue.splice(0);
      runtime.publishQueue();
    }
    this.abortAll(runtime);
    return {};
  }

  /** Cancels a start in its hooks and interrupts the running turn, without waiting. */
  abortAll(runtime: ThreadPort): void {
    abortTurns(runtime);
  }

  /**
   * The system prompt and tools the next turn of a loaded thread would start with, built
   * the way a turn builds them (extension hooks that change the prompt per turn do not run).
   */
  async context(params: ThreadContextReadParams): Promise<ThreadContextReadResult> {
    const runtime = this.host.loaded(params.threadId);
    if (!runtime) throw new AppServerError("threadNotFound", `Thread ${params.threadId} is not loaded`);
    const tools = await runtime.port.sourceTools(await turnTools(this.env, runtime));
    const systemPrompt = (await this.env.systemPrompt(runtime, tools)) ?? "";
    return {
      systemPrompt,
      tools: tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
      })),
    };
  }

  queueAdd(params: TurnQueueAddParams, caller: Caller): Promise<TurnQueueAddResult> {
    return onFreshRuntime(() => this.queueAddOnce(params, caller));
  }

  private async queueAddOnce(params: TurnQueueAddParams, caller: Caller): Promise<TurnQueueAddResult> {
    const runtime = await this.host.runtime(params.threadId, caller);
    const images = await resolveImages(params.images);
    // An input queued on a runtime unloaded meanwhile would never start.
    runtime.assertOpen();
    runtime.subscribe(caller.connectionId);
    runtime.noteInitiator(caller.connectionId);
    this.nextQueueId += 1;
    const queueId = `q-${Date.now().toString(36)}-${this.nextQueueId}`;
    runtime.queue.push({
      id: queueId,
      text: params.text,
      images,
      initiator: caller.connectionId,
      ...(params.clientMessageId !== undefined ? { clientMessageId: params.clientMessageId } : {}),
    });
    if (runtime.busy) runtime.publishQueue();
    else await drainQueue(runtime, this.env, () => this.usableModel(runtime));
    return { queueId };
  }

  /** `thread/undo`: the last turn's file changes put back; queued inputs start once it is done. */
  async undo(params: ThreadUndoParams, caller: Caller): Promise<ThreadUndoResult> {
    const runtime = await this.host.runtime(params.threadId, caller);
    runtime.subscribe(caller.connectionId);
    try {
      return await undoLastTurn(runtime);
    } finally {
      if (!runtime.closed && !runtime.busy && runtime.queue.length > 0) {
        await drainQueue(runtime, this.env, () => this.usableModel(runtime));
      }
    }
  }

  /** `thread/shell/run`: a user command between turns; queued inputs start once it is done. */
  async shell(params: ThreadShellRunParams, caller: Caller): Promise<ThreadShellRunResult> {
    const runtime = await this.host.runtime(params.threadId, caller);
    runtime.subscribe(caller.connectionId);
    const result = await runShellCommand(runtime, this.env, params);
    if (!runtime.closed && !runtime.busy && runtime.queue.length > 0) {
      await drainQueue(runtime, this.env, () => this.usableModel(runtime));
    }
    return result;
  }

  async queueRemove(params: TurnQueueRemoveParams, _caller: Caller): Promise<TurnQueueRemoveResult> {
    const runtime = this.host.loaded(params.threadId);
    if (!runtime) {
      if (!(await this.host.exists(params.threadId))) {
        throw new AppServerError("threadNotFound", `Thread ${params.threadId} not found`);
      }
      return { removed: false };
    }
    const at = runtime.queue.findIndex((q) => q.id === params.queueId);
    if (at < 0) return { removed: false };
    runtime.queue.splice(at, 1);
    runtime.publishQueue();
    return { removed: true };
  }

  /** After a turn settles: start the next queued input. */
  settled(runtime: ThreadPort): void {
    if (runtime.queue.length === 0) return;
    void drainQueue(runtime, this.env, () => this.usableModel(runtime));
  }

  /** The context size estimate for usage reports. */
  contextTokens(runtime: ThreadPort): number | undefined {
    return this.env.compaction.contextTokens(runtime);
  }
}
