/**
 * Runs turns: admission and input hooks, the durable start marker, the agent run with
 * approvals and compaction wired in, and the end marker with its notifications. A turn
 * is one agent run between its markers; steers and retries stay inside it.
 */
import { Agent, type AgentEvent, type AnyAgentTool } from "@knightcode/agent";
import type {
  AssistantMessage,
  ImageContent,
  Message,
  Model,
  StreamFunction,
  UserMessage,
} from "@knightcode/ai";
import { AppServerError } from "@knightcode/app-server-protocol";
import type { AgentMessage, SessionEntry, TurnOutcome } from "@knightcode/session-store";
import { buildSessionContext, toModelMessages } from "@knightcode/session-store";
import { callHook, type ExtensionHooks } from "./extension-hooks.ts";
import { projectTurns, turnSummary } from "./history-projection.ts";
import { LiveTurn } from "./live-turn.ts";
import type { ErrorKind, Turn } from "./shapes.ts";
import type { RunningTurn, ThreadRuntime } from "./thread-runtime.ts";
import { gateToolCall } from "./tool-gate.ts";
import { normalizeErrorKind } from "./turn-error.ts";

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
}

/** Everything a turn needs besides the thread. */
export interface TurnEnvironment {
  streamFn: StreamFunction;
  getApiKey(model: Model): Promise<string | undefined>;
  tools(cwd: string): AnyAgentTool[];
  systemPrompt(runtime: ThreadRuntime, tools: readonly AnyAgentTool[]): Promise<string | undefined>;
  compaction: CompactionHooks;
  /** Called after every turn settles so the manager can start queued input. */
  settled(runtime: ThreadRuntime): void;
}

/** An input about to become a turn. */
export interface TurnInput {
  text: string;
  images: ImageContent[];
  clientMessageId?: string;
  requestId?: string;
  initiator: string;
}

function hooksOf(runtime: ThreadRuntime): ExtensionHooks {
  return runtime.extensions.hooks;
}

function userMessage(text: string, images: ImageContent[], now: number): UserMessage {
  return {
    role: "user",
    content: images.length > 0 ? [{ type: "text", text }, ...images] : text,
    timestamp: now,
  };
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
  const pending = { cancelled: false };
  runtime.pendingStart = pending;
  let text = input.text;
  let images = input.images;
  try {
    const hook = hooksOf(runtime).input;
    const result = await callHook(
      hook && (() => hook({ text, images, source: "start" })),
      { action: "continue" as const },
      (w) => runtime.warn(w),
    );
    if (pending.cancelled) {
      runtime.pendingStart = undefined;
      runtime.release();
      return "cancelled";
    }
    if (result.action === "handled") {
      runtime.pendingStart = undefined;
      runtime.release();
      return "handled";
    }
    text = result.text ?? text;
    images = result.images ?? images;
  } catch (error) {
    runtime.pendingStart = undefined;
    runtime.release();
    throw error;
  }
  runtime.pendingStart = undefined;

  let start: SessionEntry;
  try {
    start = runtime.append({ type: "turn_start", startedAt: runtime.host.clock.now() });
  } catch (error) {
    runtime.release();
    throw error;
  }
  if (start.type !== "turn_start") throw new Error("unreachable");
  const running: RunningTurn = {
    live: new LiveTurn(runtime.id, start, input.clientMessageId, (n) => runtime.toSubscribers(n)),
    controller: new AbortController(),
    interrupted: false,
    interceptedSteers: new Set(),
    steering: [],
    refusedCalls: new Map(),
    settling: false,
    done: Promise.resolve(),
    deliverSteer: (steerText, steerImages) => {
      // Before the agent exists (compaction, before_agent_start) steers wait and join the first request.
      early.push(userMessage(steerText, steerImages, runtime.host.clock.now()));
      running.steering.push(steerText);
      runtime.publishQueue();
    },
  };
  const early: UserMessage[] = [];
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
  running.done = runTurnBody(
    runtime,
    env,
    running,
    model,
    userMessage(text, images, runtime.host.clock.now()),
    early,
  );
  return "started";
}

async function runTurnBody(
  runtime: ThreadRuntime,
  env: TurnEnvironment,
  running: RunningTurn,
  model: Model,
  prompt: UserMessage,
  early: UserMessage[],
): Promise<void> {
  const signal = running.controller.signal;
  const hooks = hooksOf(runtime);
  const warn = (w: Parameters<ThreadRuntime["warn"]>[0]) => runtime.warn(w);
  const turnId = running.live.id;
  let lastAssistant: AssistantMessage | undefined;
  let failure: { message: string; kind: ErrorKind } | undefined;
  let promptPersisted = false;
  try {
    if (!signal.aborted) await env.compaction.maybeCompact(runtime, "threshold", signal);
    if (!signal.aborted) {
      const hook = hooks.beforeAgentStart;
      await callHook(hook && (() => hook({ turnId })), undefined, warn);
    }
    if (signal.aborted || running.interrupted) {
      // Interrupted after acceptance but before the run: the input is kept, no model request is made.
      persistMessage(runtime, running, prompt);
      promptPersisted = true;
    } else {
      const tools = env.tools(runtime.cwd);
      const systemPrompt = await env.systemPrompt(runtime, tools);
      const agent = createAgent(runtime, env, running, model, tools, systemPrompt, (m) => {
        if (m.role === "assistant") lastAssistant = m;
      });
      running.abortAgent = () => agent.abort();
      running.deliverSteer = (text, images) =>
        agent.steer(userMessage(text, images, runtime.host.clock.now()));
      for (const message of early.splice(0)) agent.steer(message);
      await callHook(hooks.turnStart && (() => hooks.turnStart!({ turnId })), undefined, warn);
      await agent.prompt(prompt);
      promptPersisted = true;
      // Steers accepted after the model's last tool batch still belong to this turn.
      while (!signal.aborted && agent.getQueue().steering.length > 0) await agent.continue();
      let recovered = 0;
      while (
        !signal.aborted &&
        recovered < 1 &&
        lastAssistant &&
        (await env.compaction.recover(runtime, lastAssistant, signal, () =>
          callHook(hooks.agentEnd && (() => hooks.agentEnd!({ turnId, aborted: false })), undefined, warn),
        ))
      ) {
        recovered += 1;
        agent.setMessages(contextMessages(runtime));
        await agent.continue();
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

function contextMessages(runtime: ThreadRuntime): Message[] {
  const ctx = buildSessionContext(runtime.session.branch(), runtime.session.header);
  return toModelMessages(ctx.messages);
}

function persistMessage(runtime: ThreadRuntime, running: RunningTurn, message: AgentMessage): SessionEntry {
  const entry = runtime.append({ type: "message", message });
  running.live.onEntryPersisted(entry);
  return entry;
}

function createAgent(
  runtime: ThreadRuntime,
  env: TurnEnvironment,
  running: RunningTurn,
  model: Model,
  tools: AnyAgentTool[],
  systemPrompt: string | undefined,
  onFinal: (message: AgentMessage) => void,
): Agent {
  const hooks = hooksOf(runtime);
  const warn = (w: Parameters<ThreadRuntime["warn"]>[0]) => runtime.warn(w);
  const agent = new Agent({
    model,
    streamFn: env.streamFn,
    tools,
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    messages: contextMessages(runtime),
    streamOptions: { thinkingLevel: runtime.settings.thinkingLevel, sessionId: runtime.id },
    getApiKey: (m) => env.getApiKey(m),
    beforeToolCall: (call, ctx) => gateToolCall(runtime, running, call, ctx.signal),
    afterToolCall: async (call, result) => {
      const hook = hooks.toolResult;
      await callHook(
        hook &&
          (() =>
            hook({
              toolCallId: call.toolCall.id,
              toolName: call.tool.name,
              isError: result.isError === true,
            })),
        undefined,
        warn,
      );
      return undefined;
    },
    beforeModelCall: async ({ messages, signal }) => {
      if (messages.at(-1)?.role !== "toolResult") return undefined;
      return (await env.compaction.afterToolBatch(runtime, signal))
        ? { messages: contextMessages(runtime) }
        : undefined;
    },
    onMessageEnd: async (message) => {
      const hook = hooks.messageEnd;
      const decision = await callHook(
        hook && (() => hook({ message: message as AgentMessage })),
        { action: "keep" as const },
        warn,
      );
      if (decision.action === "drop") {
        if (message.role === "assistant") running.live.withdrawStreaming();
        return { action: "drop" };
      }
      let stored = message as AgentMessage;
      if (message.role === "toolResult") {
        const refused = running.refusedCalls.get(message.toolCallId);
        if (refused) stored = { ...message, details: { approval: refused } };
      }
      persistMessage(runtime, running, stored);
      onFinal(stored);
      if (message.role === "assistant") {
        runtime.toSubscribers({
          method: "thread/tokenUsage/updated",
          params: {
            threadId: runtime.id,
            turnId: running.live.id,
            usage: runtime.usage(env.compaction.contextTokens(runtime)),
          },
        });
      }
      return { action: "keep" };
    },
  });
  agent.subscribe((event: AgentEvent) => {
    if (event.type === "message_update") running.live.onStreamEvent(event.event);
    else if (event.type === "queue_update") {
      running.steering = event.steering.map((m) => contentTextOf(m as UserMessage));
      runtime.publishQueue();
    } else if (event.type === "turn_end") {
      const hook = hooks.turnEnd;
      if (hook) void callHook(() => hook({ turnId: running.live.id, ...event }), undefined, warn);
    }
  });
  return agent;
}

function contentTextOf(message: UserMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((p) => p.type === "text")
    .map((p) => (p as { text: string }).text)
    .join("\n");
}

async function finishTurn(
  runtime: ThreadRuntime,
  env: TurnEnvironment,
  running: RunningTurn,
  lastAssistant: AssistantMessage | undefined,
  failure: { message: string; kind: ErrorKind } | undefined,
): Promise<void> {
  running.settling = true;
  running.live.end();
  const hooks = hooksOf(runtime);
  const warn = (w: Parameters<ThreadRuntime["warn"]>[0]) => runtime.warn(w);
  const turnId = running.live.id;
  const interrupted = running.interrupted || lastAssistant?.stopReason === "aborted";
  let outcome: TurnOutcome = "completed";
  let error = failure;
  if (!error && lastAssistant?.stopReason === "error") {
    const message = lastAssistant.errorMessage ?? "The model request failed";
    error = { message, kind: normalizeErrorKind(lastAssistant.errorKind, message) };
  }
  // Interrupted outcomes take precedence over failures.
  if (interrupted) outcome = "interrupted";
  else if (error) outcome = "failed";
  await callHook(
    hooks.agentEnd && (() => hooks.agentEnd!({ turnId, aborted: interrupted })),
    undefined,
    warn,
  );
  await callHook(hooks.agentBeforeSettle && (() => hooks.agentBeforeSettle!({ turnId })), undefined, warn);
  for (const reject of running.interceptedSteers) {
    reject(new AppServerError("invalidParams", "The turn ended before the steer was accepted"));
  }
  running.interceptedSteers.clear();
  let turn: Turn = { id: turnId, status: outcome, startedAt: running.live.turnStart.startedAt };
  if (!runtime.closed) {
    try {
      const end = runtime.append({
        type: "turn_end",
        turnId,
        outcome,
        ...(outcome === "failed" && error ? { error } : {}),
        completedAt: runtime.host.clock.now(),
      });
      running.live.entries.push(end);
      runtime.sync();
      const [projected] = projectTurns(running.live.entries);
      if (projected) turn = projected.turn;
    } catch {
      // Ownership loss closed the thread; the saved turn will read as interrupted.
    }
  }
  runtime.running = undefined;
  const summary = turnSummary(turn);
  runtime.toSubscribers({ method: "turn/completed", params: { threadId: runtime.id, turn: summary } });
  runtime.toEveryone({ method: "thread/turn/completed", params: { threadId: runtime.id, turn: summary } });
  if (running.steering.length > 0) {
    running.steering = [];
    runtime.publishQueue();
  }
  if (!runtime.closed) runtime.release();
  env.settled(runtime);
}
