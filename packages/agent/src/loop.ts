/**
 * The agent loop: model call, tool batch, steering, repeat; follow-ups when it would stop.
 * It works on a host-owned context array so the Agent (and its callers) always see the
 * messages as they are now.
 */
import type { AssistantMessage, Message, ToolCall, ToolDefinition, ToolResultMessage } from "@knightcode/ai";
import { abortableSleep, resolveRetryOptions } from "./retry.ts";
import { failureMessage, streamAssistant } from "./stream-assistant.ts";
import { repairToolPairs } from "./tool-pairing.ts";
import { runToolBatch } from "./tool-runner.ts";
import type { AgentEvent, AgentOptions, AnyAgentTool, RoleMessage } from "./types.ts";

/** What the loop needs from its owner. */
export interface LoopHost<M extends RoleMessage> {
  options: AgentOptions<M>;
  /** The live context; the loop appends to it and `beforeModelCall` may replace its contents. */
  context: (M | Message)[];
  /** Takes the steering messages to deliver now (empty when none). */
  takeSteering(): M[];
  /** Takes the follow-up messages to run next (empty when none). */
  takeFollowUps(): M[];
  /** True while steers wait, checked right before each model call. */
  hasSteering(): boolean;
  emit(event: AgentEvent<M>): void;
}

/** Keeps user, assistant and tool-result messages; other roles are the session's business. */
export function defaultConvertToLlm<M extends RoleMessage>(messages: readonly (M | Message)[]): Message[] {
  return messages.filter(
    (m): m is Message => m.role === "user" || m.role === "assistant" || m.role === "toolResult",
  );
}

function toolDefinitions(tools: readonly AnyAgentTool[]): ToolDefinition[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters as Record<string, unknown>,
  }));
}

function logHookError(hook: string, error: unknown): void {
  process.stderr.write(
    `[agent] ${hook} hook failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
}

/** Runs until the model stops with nothing queued, the run fails, or `signal` aborts. */
export async function runAgentLoop<M extends RoleMessage>(
  host: LoopHost<M>,
  prompts: readonly M[],
  signal: AbortSignal,
): Promise<(M | Message)[]> {
  const { options, emit } = host;
  const retry = resolveRetryOptions(options.retry);
  const sleep = options.sleep ?? abortableSleep;
  const convert = options.convertToLlm ?? defaultConvertToLlm;
  const added: (M | Message)[] = [];

  // The one place a message enters the context: events, the drop hook, then append.
  const addMessage = async (message: M | Message, alreadyStarted = false): Promise<boolean> => {
    if (!alreadyStarted) emit({ type: "message_start", message });
    let dropped = false;
    if (options.onMessageEnd) {
      try {
        dropped = (await options.onMessageEnd(message)).action === "drop";
      } catch (error) {
        logHookError("onMessageEnd", error);
      }
    }
    emit({ type: "message_end", message, dropped });
    if (!dropped) {
      host.context.push(message);
      added.push(message);
    }
    return !dropped;
  };

  emit({ type: "agent_start" });
  let pending: M[] = [...prompts, ...host.takeSteering()];
  let aborted = false;

  outer: while (true) {
    let keepGoing = true;
    while (keepGoing || pending.length > 0) {
      emit({ type: "turn_start" });
      for (const message of pending) await addMessage(message);
      pending = [];

      let assistant: AssistantMessage;
      let started = false;
      try {
        if (signal.aborted) throw signal.reason;
        if (options.beforeModelCall) {
          const replaced = await options.beforeModelCall({ messages: host.context, signal });
          if (replaced) host.context.splice(0, host.context.length, ...replaced.messages);
        }
        const streamed = await streamAssistant({
          options,
          // Runs right before each attempt's request: steers that arrive while the context is
          // prepared (or during a retry wait) make this call, never a later one.
          prepareContext: async () => {
            let llmMessages: Message[];
            do {
              for (const message of host.takeSteering()) await addMessage(message);
              llmMessages = repairToolPairs(await convert(host.context));
            } while (host.hasSteering());
            return {
              ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
              messages: llmMessages,
              tools: toolDefinitions(options.tools ?? []),
            };
          },
          retry,
          sleep,
          signal,
          emit,
        });
        assistant = streamed.message;
        started = streamed.started;
      } catch (error) {
        assistant = signal.aborted
          ? failureMessage(options.model, "Aborted", "aborted")
          : failureMessage(options.model, error instanceof Error ? error.message : String(error), "error");
      }

      const kept = await addMessage(assistant, started);
      if (assistant.stopReason === "error" || assistant.stopReason === "aborted") {
        emit({ type: "turn_end", message: assistant, toolResults: [] });
        aborted = assistant.stopReason === "aborted";
        break outer;
      }

      const calls = kept ? assistant.content.filter((c): c is ToolCall => c.type === "toolCall") : [];
      const batch =
        calls.length === 0
          ? undefined
          : await runToolBatch({
              assistantMessage: assistant,
              tools: options.tools ?? [],
              options,
              signal,
              emit,
              onResultInOrder: async (result) => {
                await addMessage(result);
              },
            });
      const toolResults: ToolResultMessage[] = batch ?? [];
      emit({ type: "turn_end", message: assistant, toolResults });
      if (signal.aborted) {
        aborted = true;
        break outer;
      }
      // a batch whose every tool asked to terminate ends the run without another request
      keepGoing = batch !== undefined && !batch.terminate;
      pending = host.takeSteering();
    }

    pending = host.takeFollowUps();
    if (pending.length === 0) break;
  }

  emit({ type: "agent_end", messages: added, aborted });
  return added;
}
