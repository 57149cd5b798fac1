/**
 * The agent a turn runs: the thread's context and tools, approvals at `beforeToolCall`,
 * compaction at `beforeModelCall`, persistence in `onMessageEnd`, and the agent's
 * events turned into live items. A retried provider failure withdraws what its attempt
 * streamed (`item/removed`), so the retry streams as fresh items.
 */
import {
  Agent,
  type AgentEvent,
  type AgentOptions,
  type AnyAgentTool,
  defaultConvertToLlm,
  type RetryOptions,
} from "@knightcode/agent";
import type { Message, Model, StreamFunction, UserMessage } from "@knightcode/ai";
import type { ThinkingLevel } from "@knightcode/app-server-protocol";
import type { AgentMessage, SessionEntry } from "@knightcode/session-store";
import { callHook, type ExtensionHooks } from "../extensions/extension-hooks.ts";
import { contentText } from "../history/message-content.ts";
import type { Warning } from "../shapes.ts";
import { gateToolCall } from "../tools/tool-gate.ts";
import { NestedCallItems, nestedToolCallsOf } from "./nested-tool-calls.ts";
import type { Turn } from "./turn.ts";
import type { TurnPort } from "./turn-port.ts";

/** Appends a message of the running turn and finalizes its items. */
export function persistMessage(port: TurnPort, turn: Turn, message: AgentMessage): SessionEntry {
  const entry = port.append({ type: "message", message });
  turn.live.onEntryPersisted(entry);
  return entry;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/** The `retry.*` settings as the agent takes them; ill-typed values fall back to the agent's defaults. */
export function retryOptions(settings: Record<string, unknown>): Partial<RetryOptions> {
  const retry = record(settings.retry);
  const out: Partial<RetryOptions> = {};
  if (typeof retry.enabled === "boolean") out.enabled = retry.enabled;
  const maxRetries = num(retry.maxRetries);
  if (maxRetries !== undefined) out.maxRetries = Math.floor(maxRetries);
  const baseDelayMs = num(retry.baseDelayMs);
  if (baseDelayMs !== undefined) out.baseDelayMs = baseDelayMs;
  const maxRetryDelayMs = num(record(retry.provider).maxRetryDelayMs);
  if (maxRetryDelayMs !== undefined) out.maxRetryDelayMs = maxRetryDelayMs;
  return out;
}

/** What one turn's agent is built from. */
export interface TurnAgentSetup {
  port: TurnPort;
  model: Model;
  streamFn: StreamFunction;
  getApiKey(model: Model): Promise<string | undefined>;
  /** The turn's tools before and after the thread's sources were added. */
  tools: { base: readonly AnyAgentTool[]; initial: AnyAgentTool[] };
  systemPrompt: string | undefined;
  /** What a tool call waits for first (the turn-start snapshot of the working files). */
  filesSettled?: Promise<void>;
  thinkingLevel: ThinkingLevel;
  /** Merged settings read at load (`retry.*`). */
  projectSettings: Record<string, unknown>;
  /** The home the tools expand `~` with; approvals judge `~/x` paths against it. */
  homeDir?: string;
  /** Compaction after a tool batch; true when it compacted (the context is rebuilt). */
  afterToolBatch(signal: AbortSignal): Promise<boolean>;
  /** Context size estimate for usage reports. */
  contextTokens(): number | undefined;
  /** Sees every persisted message. */
  onFinal(message: AgentMessage): void;
}

/** Builds the agent of one turn: its options step by step, then the observer of its events. */
export function createTurnAgent(turn: Turn, setup: TurnAgentSetup): Agent {
  const { port } = setup;
  const hooks = port.hooks();
  const warn = (w: Warning) => port.warn(w);
  const agent: Agent = new Agent({
    model: setup.model,
    streamFn: setup.streamFn,
    tools: setup.tools.initial,
    ...(setup.systemPrompt !== undefined ? { systemPrompt: setup.systemPrompt } : {}),
    messages: port.context(),
    streamOptions: streamOptions(setup, hooks, warn),
    getApiKey: (m) => setup.getApiKey(m),
    retry: retryOptions(setup.projectSettings),
    outputReady: () => port.outputReady(),
    beforeToolCall: async (call, ctx) => {
      // no tool touches a file before the turn's undo checkpoint holds the state it found
      await turn.checkpoint?.taken;
      await setup.filesSettled;
      return gateToolCall(port, turn, call, ctx.signal, setup.homeDir);
    },
    afterToolCall: toolResultHook(hooks, warn),
    ...contextHook(hooks, warn),
    beforeModelCall: beforeModelCall(turn, setup, () => agent),
    onMessageEnd: messageEnd(turn, setup, hooks, warn),
  });
  agent.subscribe(observer(turn, port, hooks, warn));
  return agent;
}

/** The provider request's options: thinking level, session, and pi's payload and response hooks when present. */
function streamOptions(
  setup: TurnAgentSetup,
  hooks: ExtensionHooks,
  warn: (w: Warning) => void,
): AgentOptions["streamOptions"] {
  return {
    thinkingLevel: setup.thinkingLevel,
    sessionId: setup.port.threadId,
    ...(hooks.beforeProviderRequest
      ? {
          onPayload: async (payload: unknown) => {
            const hook = hooks.beforeProviderRequest;
            const answer = await callHook(hook && (() => hook({ payload })), undefined, warn);
            return answer?.payload;
          },
        }
      : {}),
    // pi awaits these before the stream is read; the hook timeout bounds each handler.
    ...(hooks.afterProviderResponse
      ? {
          onResponse: async (response: { status: number; headers: Record<string, string> }) => {
            const hook = hooks.afterProviderResponse;
            await callHook(hook && (() => hook(response)), undefined, warn);
          },
        }
      : {}),
  };
}

/** pi's `tool_result`: an extension may patch a call's result before the model sees it. */
function toolResultHook(hooks: ExtensionHooks, warn: (w: Warning) => void): AgentOptions["afterToolCall"] {
  return async (call, result) => {
    const hook = hooks.toolResult;
    const patch = await callHook(
      hook &&
        (() =>
          hook({
            toolCallId: call.toolCall.id,
            toolName: call.tool.name,
            isError: result.isError === true,
            input: call.args,
            content: result.content,
            details: result.details,
          })),
      undefined,
      warn,
    );
    if (!patch) return undefined;
    return {
      content: patch.content ?? result.content,
      ...("details" in patch
        ? { details: patch.details }
        : result.details !== undefined
          ? { details: result.details }
          : {}),
      isError: patch.isError ?? result.isError === true,
    };
  };
}

/** pi's `context`: an extension may rewrite the messages of each request. */
function contextHook(hooks: ExtensionHooks, warn: (w: Warning) => void): Pick<AgentOptions, "convertToLlm"> {
  if (!hooks.context) return {};
  return {
    convertToLlm: async (messages: readonly Message[]) => {
      const base = defaultConvertToLlm<Message>(messages);
      const hook = hooks.context;
      const answer = await callHook(hook && (() => hook({ messages: base })), undefined, warn);
      return answer?.messages ?? base;
    },
  };
}

/**
 * Before every model request: the thread's tool sources again, extension messages sent
 * during the run, and compaction after a tool batch; the context is rebuilt when either
 * of the last two wrote something.
 */
function beforeModelCall(
  turn: Turn,
  setup: TurnAgentSetup,
  agent: () => Agent,
): AgentOptions["beforeModelCall"] {
  const { port } = setup;
  return async ({ messages, signal }) => {
    // Per-thread sources may have changed (an MCP server's tools/list_changed, one that died).
    if (port.hasToolSources) agent().options.tools = await port.sourceTools(setup.tools.base);
    // Extension messages sent during the run join the context before this request.
    const injected = turn.pendingCustomMessages.splice(0);
    for (const message of injected) turn.recordCustomMessage(message);
    if (messages.at(-1)?.role !== "toolResult") {
      return injected.length > 0 ? { messages: port.context() } : undefined;
    }
    return (await setup.afterToolBatch(signal)) || injected.length > 0
      ? { messages: port.context() }
      : undefined;
  };
}

/**
 * pi's `message_end`, then persistence: a dropped message is never written, a replaced one
 * is what the transcript keeps, a refused call's result records how it was refused, and an
 * assistant reply reports usage.
 */
function messageEnd(
  turn: Turn,
  setup: TurnAgentSetup,
  hooks: ExtensionHooks,
  warn: (w: Warning) => void,
): AgentOptions["onMessageEnd"] {
  const { port } = setup;
  return async (message) => {
    const hook = hooks.messageEnd;
    const decision = await callHook(
      hook && (() => hook({ message: message as AgentMessage })),
      { action: "keep" as const },
      warn,
    );
    // A dropped message is never written; its streamed items go with the `message_end` event.
    if (decision.action === "drop") {
      if (message.role === "user") turn.live.userMessageDropped();
      return { action: "drop" };
    }
    // A replaced message (same role) is what the transcript keeps.
    let stored = (decision.message ?? message) as AgentMessage;
    if (message.role === "toolResult" && stored.role === "toolResult") {
      const refused = turn.refusedCalls.get(message.toolCallId);
      if (refused) stored = { ...message, details: { approval: refused } };
    }
    persistMessage(port, turn, stored);
    setup.onFinal(stored);
    if (message.role === "assistant") {
      port.send({
        method: "thread/tokenUsage/updated",
        params: { threadId: port.threadId, turnId: turn.id, usage: port.usage(setup.contextTokens()) },
      });
    }
    return { action: "keep" };
  };
}

/**
 * The agent's events as live items and pi's observer hooks. The hooks (turn, message and
 * tool progress) are dispatched as the agent emits them, without holding it up: a
 * synchronous handler sees the events in order, and one that hangs delays nothing but
 * the turn's settlement, which waits for every dispatch still running (each bounded by
 * the hook timeout).
 */
function observer(
  turn: Turn,
  port: TurnPort,
  hooks: ExtensionHooks,
  warn: (w: Warning) => void,
): (event: AgentEvent) => void {
  let agentTurns = 0;
  const nested = new NestedCallItems((method, item) =>
    port.send({ method, params: { threadId: port.threadId, turnId: turn.id, item } }),
  );
  const observe = (run: () => Promise<void> | undefined): void => {
    let pending: Promise<void> | undefined;
    try {
      pending = run();
    } catch (error) {
      pending = Promise.reject(error);
    }
    if (pending === undefined) return;
    turn.defer(callHook(() => pending, undefined, warn));
  };
  return (event: AgentEvent) => {
    switch (event.type) {
      case "message_start": {
        const hook = hooks.messageStart;
        if (hook) observe(() => hook({ message: event.message as AgentMessage }));
        break;
      }
      case "message_update": {
        turn.live.onStreamEvent(event.event);
        // per delta: nothing beyond this check when no extension listens
        const hook = hooks.messageUpdate;
        if (hook) observe(() => hook({ message: event.message, assistantMessageEvent: event.event }));
        break;
      }
      case "message_end":
        // Dropped by a hook, or a failed attempt about to be retried: withdraw what it streamed.
        if (event.dropped && event.message.role === "assistant") turn.live.withdrawStreaming();
        break;
      case "retry_scheduled":
        // a retry wait is otherwise silence; the user sees why and how many tries are left
        port.send({
          method: "turn/retrying",
          params: {
            threadId: port.threadId,
            turnId: turn.id,
            attempt: event.attempt,
            maxRetries: event.maxRetries,
            delayMs: Math.round(event.delayMs),
            message: event.error.errorMessage ?? "the model request failed",
          },
        });
        break;
      case "queue_update":
        turn.steeringChanged(event.steering.map((m) => contentText((m as UserMessage).content)));
        break;
      case "tool_execution_start": {
        const hook = hooks.toolExecutionStart;
        const { toolCallId, toolName, args } = event;
        if (hook) observe(() => hook({ toolCallId, toolName, args }));
        break;
      }
      case "tool_execution_update":
      case "tool_execution_end": {
        const result = event.type === "tool_execution_update" ? event.partialResult : event.result;
        const calls = nestedToolCallsOf(result.details);
        if (calls) nested.report(event.toolCallId, calls, port.clock.now());
        if (event.type === "tool_execution_update") {
          const hook = hooks.toolExecutionUpdate;
          const { toolCallId, toolName, args, partialResult } = event;
          if (hook) observe(() => hook({ toolCallId, toolName, args, partialResult }));
        } else {
          const hook = hooks.toolExecutionEnd;
          const { toolCallId, toolName, isError } = event;
          if (hook) observe(() => hook({ toolCallId, toolName, result, isError }));
        }
        break;
      }
      case "turn_start": {
        // One agent turn is one model response and its tool calls (pi's turn_start/turn_end).
        const turnIndex = agentTurns++;
        const hook = hooks.turnStart;
        if (hook) observe(() => hook({ turnId: turn.id, turnIndex }));
        break;
      }
      case "agent_end":
        // kept for the turn's `agent_end` hook, which runs at settlement (or before a recovery)
        turn.agentRan(event.messages as AgentMessage[]);
        break;
      case "turn_end": {
        const hook = hooks.turnEnd;
        const turnIndex = Math.max(0, agentTurns - 1);
        if (hook) observe(() => hook({ turnId: turn.id, turnIndex, ...event }));
        break;
      }
    }
  };
}
