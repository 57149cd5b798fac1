/**
 * The agent a turn runs: the thread's context and tools, approvals at `beforeToolCall`,
 * compaction at `beforeModelCall`, persistence in `onMessageEnd`, and the agent's
 * events turned into live items. A retried provider failure withdraws what its attempt
 * streamed (`item/removed`), so the retry streams as fresh items.
 */
import {
  Agent,
  type AgentEvent,
  type AnyAgentTool,
  defaultConvertToLlm,
  type RetryOptions,
} from "@knightcode/agent";
import type { ImageContent, Message, Model, UserMessage } from "@knightcode/ai";
import type { AgentMessage, SessionEntry } from "@knightcode/session-store";
import { buildSessionContext, toModelMessages } from "@knightcode/session-store";
import { callHook } from "../extensions/extension-hooks.ts";
import type { RunningTurn, ThreadRuntime } from "../threads/thread-runtime.ts";
import { gateToolCall } from "../tools/tool-gate.ts";
import { NestedCallItems, nestedToolCallsOf } from "./nested-tool-calls.ts";
import type { TurnEnvironment } from "./turn-runner.ts";

/** A user message as the agent and the transcript hold it. */
export function userMessage(text: string, images: ImageContent[], now: number): UserMessage {
  return {
    role: "user",
    content: images.length > 0 ? [{ type: "text", text }, ...images] : text,
    timestamp: now,
  };
}

/** The model's view of the thread's current branch. */
export function contextMessages(runtime: ThreadRuntime): Message[] {
  const ctx = buildSessionContext(runtime.session.branch(), runtime.session.header);
  return toModelMessages(ctx.messages);
}

/** Appends a message of the running turn and finalizes its items. */
export function persistMessage(
  runtime: ThreadRuntime,
  running: RunningTurn,
  message: AgentMessage,
): SessionEntry {
  const entry = runtime.append({ type: "message", message });
  running.live.onEntryPersisted(entry);
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

function contentTextOf(message: UserMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((p) => p.type === "text")
    .map((p) => (p as { text: string }).text)
    .join("\n");
}

/** Builds the agent of one turn; `onFinal` sees every persisted message. */
export function createTurnAgent(
  runtime: ThreadRuntime,
  env: TurnEnvironment,
  running: RunningTurn,
  model: Model,
  tools: { base: readonly AnyAgentTool[]; initial: AnyAgentTool[] },
  systemPrompt: string | undefined,
  onFinal: (message: AgentMessage) => void,
): Agent {
  const hooks = runtime.extensions.hooks;
  const warn = (w: Parameters<ThreadRuntime["warn"]>[0]) => runtime.warn(w);
  const agent: Agent = new Agent({
    model,
    streamFn: env.streamFn,
    tools: tools.initial,
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    messages: contextMessages(runtime),
    streamOptions: {
      thinkingLevel: runtime.settings.thinkingLevel,
      sessionId: runtime.id,
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
    },
    getApiKey: (m) => env.getApiKey(m),
    retry: retryOptions(runtime.projectSettings),
    outputReady: () => runtime.host.outputReady?.(runtime.subscribers),
    beforeToolCall: (call, ctx) => gateToolCall(runtime, running, call, ctx.signal, env.homeDir),
    afterToolCall: async (call, result) => {
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
    },
    ...(hooks.context
      ? {
          convertToLlm: async (messages: readonly Message[]) => {
            const base = defaultConvertToLlm<Message>(messages);
            const hook = hooks.context;
            const answer = await callHook(hook && (() => hook({ messages: base })), undefined, warn);
            return answer?.messages ?? base;
          },
        }
      : {}),
    beforeModelCall: async ({ messages, signal }) => {
      // Per-thread sources may have changed (an MCP server's tools/list_changed, one that died).
      if (runtime.toolSources.length > 0) agent.options.tools = await runtime.withSourceTools(tools.base);
      // Extension messages sent during the run join the context before this request.
      const injected = running.pendingCustomMessages.splice(0);
      for (const message of injected) runtime.append({ type: "custom_message", ...message });
      if (messages.at(-1)?.role !== "toolResult") {
        return injected.length > 0 ? { messages: contextMessages(runtime) } : undefined;
      }
      return (await env.compaction.afterToolBatch(runtime, signal)) || injected.length > 0
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
      // A dropped message is never written; its streamed items go with the `message_end` event.
      if (decision.action === "drop") {
        if (message.role === "user") running.live.userMessageDropped();
        return { action: "drop" };
      }
      // A replaced message (same role) is what the transcript keeps.
      let stored = (decision.message ?? message) as AgentMessage;
      if (message.role === "toolResult" && stored.role === "toolResult") {
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
  let agentTurns = 0;
  const nested = new NestedCallItems((method, item) =>
    runtime.toSubscribers({ method, params: { threadId: runtime.id, turnId: running.live.id, item } }),
  );
  // pi's observer events (turn, message and tool progress) are dispatched as the agent emits
  // them, without holding it up: a synchronous handler sees the events in order, and one
  // that hangs delays nothing but the turn's settlement, which waits for every dispatch
  // still running (each bounded by the hook timeout).
  const observe = (run: () => Promise<void> | undefined): void => {
    let pending: Promise<void> | undefined;
    try {
      pending = run();
    } catch (error) {
      pending = Promise.reject(error);
    }
    if (pending === undefined) return;
    const settled = callHook(() => pending, undefined, warn);
    running.deferredHooks.add(settled);
    void settled.finally(() => running.deferredHooks.delete(settled));
  };
  agent.subscribe((event: AgentEvent) => {
    switch (event.type) {
      case "message_start": {
        const hook = hooks.messageStart;
        if (hook) observe(() => hook({ message: event.message as AgentMessage }));
        break;
      }
      case "message_update": {
        running.live.onStreamEvent(event.event);
        // per delta: nothing beyond this check when no extension listens
        const hook = hooks.messageUpdate;
        if (hook) observe(() => hook({ message: event.message, assistantMessageEvent: event.event }));
        break;
      }
      case "message_end":
        // Dropped by a hook, or a failed attempt about to be retried: withdraw what it streamed.
        if (event.dropped && event.message.role === "assistant") running.live.withdrawStreaming();
        break;
      case "queue_update":
        running.steering = event.steering.map((m) => contentTextOf(m as UserMessage));
        runtime.publishQueue();
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
        if (calls) nested.report(event.toolCallId, calls, runtime.host.clock.now());
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
        if (hook) observe(() => hook({ turnId: running.live.id, turnIndex }));
        break;
      }
      case "turn_end": {
        const hook = hooks.turnEnd;
        const turnIndex = Math.max(0, agentTurns - 1);
        if (hook) observe(() => hook({ turnId: running.live.id, turnIndex, ...event }));
        break;
      }
    }
  });
  return agent;
}
