/**
 * Runs turns: admission and input hooks, the durable start marker, the agent run with
 * approvals and compaction wired in, and the end marker with its notifications. A turn
 * is one agent run between its markers; steers and retries stay inside it.
 */

import type { AnyAgentTool, ToolOperations } from "@knightcode/agent";
import type { AssistantMessage, ImageContent, Model, StreamFunction, UserMessage } from "@knightcode/ai";
import type { SummarizeBranchOutcome } from "@knightcode/compaction";
import type { SessionEntry } from "@knightcode/session-store";
import { callHook } from "../extensions/extension-hooks.ts";
import type { RunningTurn, ThreadRuntime } from "../threads/thread-runtime.ts";
import { contextMessages, createTurnAgent, persistMessage, userMessage } from "./agent-wiring.ts";
import { LiveTurn } from "./live-turn.ts";
import { normalizeErrorKind } from "./turn-error.ts";
import { deferredHooksSettled, finishTurn, type TurnFailure } from "./turn-settlement.ts";

/** Compaction at the spec's check points, from `@knightcode/compaction`. */
export interface CompactionHooks {
  /** Before a new user prompt and between tool batches: compact when over the threshold. */
  maybeCompact(runtime: ThreadRuntime, reason: "threshold", signal: AbortSignal): Promise<void>;
  /** After a tool batch, before the next response; true when it compacted (the context is rebuilt). */
  afterToolBatch(runtime: ThreadRuntime, signal: AbortSignal): Promise<boolean>;
  /**
   * After a run that ended in overflow or an early `length` stop: run the attempt's
   * `agent_end` (via `agentEnd`), repair the context, and say whether to retry.
   */
  recover(
    runtime: ThreadRuntime,
    lastAssistant: AssistantMessage,
    signal: AbortSignal,
    agentEnd: () => Promise<void>,
  ): Promise<boolean>;
  /** Context size estimate for usage reports. */
  contextTokens(runtime: ThreadRuntime): number | undefined;
  /**
   * `thread/tree/navigate`: `session_before_tree`, then (when asked) a summary of the
   * branch being left. Absent: navigation never summarizes.
   */
  branchSummary?(
    runtime: ThreadRuntime,
    request: { targetId: string; summarize: boolean; customInstructions?: string },
    signal: AbortSignal,
  ): Promise<SummarizeBranchOutcome>;
  /**
   * `/compact [instructions]`: one manual compaction (reason `manual`) with the user's
   * instructions passed through. Absent: manual compaction is unavailable.
   */
  manual?(
    runtime: ThreadRuntime,
    customInstructions: string | undefined,
    signal: AbortSignal,
  ): Promise<ManualCompactionOutcome>;
}

/** How a manual compaction ended. */
export type ManualCompactionOutcome =
  | { status: "compacted" }
  | { status: "cancelled" }
  | { status: "failed"; errorMessage: string };

/** Everything a turn needs besides the thread. */
export interface TurnEnvironment {
  streamFn: StreamFunction;
  getApiKey(model: Model): Promise<string | undefined>;
  /** The tools of one turn, acting through the thread's operations (undefined: the factory's own). */
  tools(cwd: string, ops: ToolOperations | undefined): AnyAgentTool[] | Promise<AnyAgentTool[]>;
  systemPrompt(runtime: ThreadRuntime, tools: readonly AnyAgentTool[]): Promise<string | undefined>;
  compaction: CompactionHooks;
  /** Called after every turn settles so the manager can start queued input. */
  settled(runtime: ThreadRuntime): void;
  /** The home the tools expand `~` with; approvals judge `~/x` paths against it. */
  homeDir?: string;
  /** Turns accepted input text into the user message (prompt templates, `skill:<name>`). */
  expandInput?(runtime: ThreadRuntime, text: string): Promise<string>;
}

/**
 * The tools of one turn: the environment's, with extension tools added; an extension
 * tool named like a built-in takes its place (and keeps its approval class, which goes by
 * name). An extension's `setActiveTools` choice filters the result.
 */
export async function turnTools(env: TurnEnvironment, runtime: ThreadRuntime): Promise<AnyAgentTool[]> {
  const base = await env.tools(runtime.cwd, runtime.tools.ops);
  const extra = runtime.extensions.tools?.() ?? [];
  const active = runtime.extensions.activeTools?.();
  if (extra.length === 0 && active === undefined) return base;
  const byName = new Map(extra.map((tool) => [tool.name, tool]));
  const merged = base.map((tool) => byName.get(tool.name) ?? tool);
  for (const tool of extra) if (!base.some((b) => b.name === tool.name)) merged.push(tool);
  return active === undefined ? merged : merged.filter((tool) => active.includes(tool.name));
}

function promptText(message: UserMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((part) => part.type === "text")
    .map((part) => (part as { text: string }).text)
    .join("\n");
}

function promptImages(message: UserMessage): ImageContent[] {
  return typeof message.content === "string"
    ? []
    : (message.content.filter((part) => part.type === "image") as ImageContent[]);
}

/** An input about to become a turn. */
export interface TurnInput {
  text: string;
  images: ImageContent[];
  clientMessageId?: string;
  requestId?: string;
  initiator: string;
}

/**
 * Writes the durable start marker, makes the turn the running one and sends
 * `turn/started`. Admission must already be held; a failed write releases it.
 */
export function openTurn(
  runtime: ThreadRuntime,
  input: Pick<TurnInput, "clientMessageId" | "requestId">,
  model: Model,
): RunningTurn {
  let start: SessionEntry;
  try {
    start = runtime.append({ type: "turn_start", startedAt: runtime.host.clock.now() });
  } catch (error) {
    runtime.release();
    throw error;
  }
  if (start.type !== "turn_start") throw new Error("unreachable");
  const early: UserMessage[] = [];
  const running: RunningTurn = {
    live: new LiveTurn(runtime.id, start, input.clientMessageId, (n) => runtime.toSubscribers(n)),
    controller: new AbortController(),
    interrupted: false,
    interceptedSteers: new Set(),
    steering: [],
    refusedCalls: new Map(),
    settling: false,
    deferredHooks: new Set(),
    pendingCustomMessages: [],
    done: Promise.resolve(),
    early,
    deliverSteer: (steerText, steerImages) => {
      // Before the agent exists (compaction, before_agent_start) steers wait and join the first request.
      early.push(userMessage(steerText, steerImages, runtime.host.clock.now()));
      running.steering.push(steerText);
      runtime.publishQueue();
    },
  };
  runtime.running = running;
  runtime.model = model;
  runtime.toSubscribers({
    method: "turn/started",
    params: {
      threadId: runtime.id,
      turn: { id: start.id, status: "inProgress", startedAt: start.startedAt },
      ...(input.requestId !== undefined ? { requestId: input.requestId } : {}),
    },
  });
  return running;
}

/**
 * Admits and starts a turn. Resolves once the input is accepted (`started`), consumed
 * by an extension (`handled`), or interrupted in its input hooks (`cancelled`); the turn
 * itself runs on.
 */
export async function startTurn(
  runtime: ThreadRuntime,
  env: TurnEnvironment,
  input: TurnInput,
  model: Model,
): Promise<"started" | "handled" | "cancelled"> {
  runtime.admit("turn");
  const pending = { cancelled: false, controller: new AbortController() };
  runtime.pendingStart = pending;
  let text = input.text;
  let images = input.images;
  try {
    const hook = runtime.extensions.hooks.input;
    const result = await callHook(
      hook && (() => hook({ text, images, source: "start" })),
      { action: "continue" as const },
      (w) => runtime.warn(w),
    );
    if (!pending.cancelled && result.action !== "handled") {
      text = result.text ?? text;
      images = result.images ?? images;
      if (env.expandInput) text = await env.expandInput(runtime, text);
    }
    if (pending.cancelled || result.action === "handled") {
      runtime.pendingStart = undefined;
      runtime.release();
      return pending.cancelled ? "cancelled" : "handled";
    }
  } catch (error) {
    runtime.pendingStart = undefined;
    runtime.release();
    throw error;
  }
  runtime.pendingStart = undefined;
  const running = openTurn(runtime, input, model);
  running.done = runTurnBody(
    runtime,
    env,
    running,
    model,
    userMessage(text, images, runtime.host.clock.now()),
  );
  return "started";
}

async function runTurnBody(
  runtime: ThreadRuntime,
  env: TurnEnvironment,
  running: RunningTurn,
  model: Model,
  prompt: UserMessage,
): Promise<void> {
  const signal = running.controller.signal;
  const hooks = runtime.extensions.hooks;
  const warn = (w: Parameters<ThreadRuntime["warn"]>[0]) => runtime.warn(w);
  const turnId = running.live.id;
  let lastAssistant: AssistantMessage | undefined;
  let failure: TurnFailure | undefined;
  let promptPersisted = false;
  try {
    if (!signal.aborted) await env.compaction.maybeCompact(runtime, "threshold", signal);
    let base: AnyAgentTool[] = [];
    let tools: AnyAgentTool[] = [];
    let systemPrompt: string | undefined;
    if (!signal.aborted) {
      base = await turnTools(env, runtime);
      tools = await runtime.withSourceTools(base);
      systemPrompt = await env.systemPrompt(runtime, tools);
      const hook = hooks.beforeAgentStart;
      const answer = await callHook(
        hook &&
          (() =>
            hook({
              turnId,
              prompt: promptText(prompt),
              images: promptImages(prompt),
              systemPrompt: systemPrompt ?? "",
            })),
        undefined,
        warn,
      );
      if (answer && typeof answer.systemPrompt === "string") systemPrompt = answer.systemPrompt;
      if (answer?.message) running.pendingCustomMessages.push(answer.message);
      runtime.lastSystemPrompt = systemPrompt ?? "";
    }
    if (signal.aborted || running.interrupted) {
      // Interrupted after acceptance but before the run: the input is kept, no model request is made.
      persistMessage(runtime, running, prompt);
      promptPersisted = true;
    } else {
      const agent = createTurnAgent(
        runtime,
        env,
        running,
        model,
        { base, initial: tools },
        systemPrompt,
        (m) => {
          if (m.role === "assistant") lastAssistant = m;
        },
      );
      running.abortAgent = () => agent.abort();
      running.deliverSteer = (text, images) =>
        agent.steer(userMessage(text, images, runtime.host.clock.now()));
      for (const message of running.early.splice(0)) agent.steer(message);
      await callHook(hooks.agentStart && (() => hooks.agentStart!({ turnId })), undefined, warn);
      await agent.prompt(prompt);
      promptPersisted = true;
      let recovered = false;
      for (;;) {
        // Steers accepted after the model's last tool batch still belong to this turn.
        while (!signal.aborted && agent.getQueue().steering.length > 0) await agent.continue();
        if (signal.aborted) break;
        if (
          !recovered &&
          lastAssistant &&
          (await env.compaction.recover(runtime, lastAssistant, signal, async () => {
            // The attempt's `turn_end` hooks finish before its `agent_end`, as at settlement.
            await deferredHooksSettled(running);
            await callHook(
              hooks.agentEnd && (() => hooks.agentEnd!({ turnId, aborted: false })),
              undefined,
              warn,
            );
          }))
        ) {
          recovered = true;
          agent.setMessages(contextMessages(runtime));
          await agent.continue();
          continue;
        }
        // A steer accepted while recovery was deciding still runs here, never in a later turn.
        if (signal.aborted || agent.getQueue().steering.length === 0) break;
      }
    }
  } catch (error) {
    if (!runtime.closed) {
      const message = error instanceof Error ? error.message : String(error);
      failure = { message, kind: normalizeErrorKind(undefined, message) };
    }
  }
  if (!promptPersisted && !runtime.closed) {
    try {
      persistMessage(runtime, running, prompt);
    } catch {
      // Ownership loss already closed the thread.
    }
  }
  await finishTurn(runtime, env, running, lastAssistant, failure);
}
