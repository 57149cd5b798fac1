/**
 * Slash commands in `turn/start` text. Built-ins first: `/compact [instructions]` runs a
 * manual compaction as the turn's work (no model reply); `/name <name>` names the thread;
 * `/new` and `/fork [name]` replace the session, moving every subscriber to the new
 * thread with `thread/replaced`; `/reload` loads the thread's extensions again. Then
 * extension commands. Prompt templates and
 * `skill:<name>` are expanded later, after the input hooks, into the user message
 * (`prompt-expansion.ts`); an unknown `/x` is plain text for the model.
 */
import type { Model } from "@knightcode/ai";
import { AppServerError, type TurnStartResult } from "@knightcode/app-server-protocol";
import type { Caller } from "../api.ts";
import type { ThreadPort } from "../thread-port.ts";
import type { ThreadCreation } from "../threads/thread-creation.ts";
import { replaceThread } from "../threads/thread-replace.ts";
import type { TurnEnvironment } from "../turns/environment.ts";
import type { PendingStart } from "../turns/turn.ts";
import { openTurn } from "../turns/turn-runner.ts";
import { finishTurn, type TurnFailure } from "../turns/turn-settlement.ts";
import type { SlashCommand } from "./slash-command-parse.ts";

/** Longest thread name, as `thread/start` allows. */
export const MAX_THREAD_NAME_CHARS = 512;

/** One `turn/start` whose text is a command. */
export interface CommandRequest {
  runtime: ThreadPort;
  caller: Caller;
  command: SlashCommand;
  requestId?: string;
  clientMessageId?: string;
  /** The thread's model, or the `noModel` error when none is usable. */
  requireModel(): Promise<Model>;
}

/** What commands need from the manager. */
export interface CommandHost {
  env: TurnEnvironment;
  creation: ThreadCreation;
  /** `/reload`; absent: the text goes on as an ordinary input. */
  reloadExtensions?(runtime: ThreadPort): Promise<void>;
  /**
   * A replaced thread's extensions shut down with the reason and load afresh, so contexts
   * captured before the replacement are stale while the thread stays usable.
   */
  replaced?(runtime: ThreadPort, reason: "new" | "fork", targetSessionFile: string): Promise<void>;
}

function result(req: CommandRequest, status: TurnStartResult["status"], threadId: string): TurnStartResult {
  return { status, threadId, ...(req.requestId !== undefined ? { requestId: req.requestId } : {}) };
}

/**
 * Runs a built-in or extension command; undefined when the text names neither (it then
 * starts an ordinary turn). The thread is known not to be busy.
 */
export async function runSlashCommand(
  req: CommandRequest,
  host: CommandHost,
): Promise<TurnStartResult | undefined> {
  const { runtime, command } = req;
  switch (command.name) {
    case "compact":
      return compactCommand(req, host.env);
    case "name":
      return nameCommand(req);
    case "new":
    case "fork":
      return replaceCommand(req, host);
    case "reload":
      if (host.reloadExtensions) return reloadCommand(req, host.reloadExtensions);
      break;
  }
  const extension = runtime.extensions;
  if (!extension.runCommand || !extension.commands.some((c) => c.name === command.name)) return undefined;
  runtime.subscribe(req.caller.connectionId);
  runtime.noteInitiator(req.caller.connectionId);
  runtime.admit("command");
  const pending: PendingStart = { cancelled: false, controller: new AbortController(), caller: req.caller };
  runtime.pendingStart = pending;
  try {
    await extension.runCommand(command.name, command.args);
  } catch (error) {
    runtime.warn({
      source: "extension",
      message: `Command /${command.name} failed: ${(error as Error).message}`,
    });
  } finally {
    runtime.pendingStart = undefined;
    if (!runtime.closed) runtime.release();
  }
  const replaced = pending.replacedBy;
  if (!replaced) return result(req, pending.cancelled ? "cancelled" : "handled", runtime.id);
  // The command moved its thread's clients on (`ctx.newSession()`/`ctx.fork()`); now that
  // it has returned, the old thread's extensions shut down and load afresh, as after `/new`.
  if (host.replaced && !runtime.closed) await host.replaced(runtime, replaced.reason, replaced.path);
  return result(req, "handled", replaced.threadId);
}

/** `/reload`: the thread's extensions shut down and load again; the input is handled. */
async function reloadCommand(
  req: CommandRequest,
  reload: (runtime: ThreadPort) => Promise<void>,
): Promise<TurnStartResult> {
  const { runtime } = req;
  runtime.subscribe(req.caller.connectionId);
  runtime.admit("command");
  try {
    await reload(runtime);
  } finally {
    if (!runtime.closed) runtime.release();
  }
  return result(req, "handled", runtime.id);
}

/** `/compact [instructions]`: a turn whose work is one manual compaction. */
async function compactCommand(req: CommandRequest, env: TurnEnvironment): Promise<TurnStartResult> {
  const { runtime } = req;
  const model = await req.requireModel();
  runtime.assertOpen();
  runtime.subscribe(req.caller.connectionId);
  runtime.noteInitiator(req.caller.connectionId);
  runtime.admit("turn");
  const running = openTurn(runtime, req, model);
  const instructions = req.command.args === "" ? undefined : req.command.args;
  running.done = (async () => {
    let failure: TurnFailure | undefined;
    try {
      const outcome = env.compaction.manual
        ? await env.compaction.manual(runtime, instructions, running.controller.signal)
        : ({ status: "failed", errorMessage: "Manual compaction is not available" } as const);
      if (outcome.status === "failed") failure = { message: outcome.errorMessage, kind: "other" };
    } catch (error) {
      failure = { message: (error as Error).message, kind: "other" };
    }
    await finishTurn(runtime.port, running, undefined, failure, false);
    env.settled(runtime);
  })();
  return result(req, "started", runtime.id);
}

/** `/name <name>`: persists the name (`session_info`) and broadcasts the updated thread. */
function nameCommand(req: CommandRequest): TurnStartResult {
  const { runtime } = req;
  const name = req.command.args;
  if (name === "" || name.length > MAX_THREAD_NAME_CHARS) {
    throw new AppServerError(
      "invalidParams",
      `/name takes a name of 1 to ${MAX_THREAD_NAME_CHARS} characters`,
    );
  }
  runtime.subscribe(req.caller.connectionId);
  // Synchronous from the busy check on: no start can slip in between.
  runtime.append({ type: "session_info", name });
  runtime.sync();
  runtime.toEveryone({ method: "thread/started", params: { thread: runtime.thread() } });
  return result(req, "handled", runtime.id);
}

/**
 * `/new` and `/fork [name]`: a new thread takes the old one's place for every subscriber,
 * unless an extension refuses (`session_before_switch` / `session_before_fork`).
 */
async function replaceCommand(req: CommandRequest, host: CommandHost): Promise<TurnStartResult> {
  const { runtime: old, caller } = req;
  old.subscribe(caller.connectionId);
  old.admit("command");
  let fresh: ThreadPort;
  try {
    const name = req.command.args === "" ? undefined : req.command.args;
    fresh = await replaceThread(
      old,
      caller,
      req.command.name === "new" ? { kind: "new" } : { kind: "fork", ...(name ? { name } : {}) },
      host.creation,
    );
  } finally {
    if (!old.closed) old.release();
  }
  if (host.replaced && !old.closed)
    await host.replaced(old, req.command.name === "new" ? "new" : "fork", fresh.session.path);
  return result(req, "handled", fresh.id);
}
