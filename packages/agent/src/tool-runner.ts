/**
 * Runs one assistant message's tool calls: validate, ask `beforeToolCall` in call order,
 * execute in parallel (same-file mutations serialized), let `afterToolCall` replace results,
 * and hand results back in call order.
 */
import type { AssistantMessage, ToolCall, ToolResultMessage } from "@knightcode/ai";
import { PathLock } from "./path-lock.ts";
import type {
  AgentEvent,
  AgentOptions,
  AgentToolResult,
  AnyAgentTool,
  RoleMessage,
  ToolCallInfo,
} from "./types.ts";
import { validateToolArgs } from "./validate-args.ts";

/** What the batch runner needs from the loop. */
export interface ToolBatchInput<M extends RoleMessage> {
  assistantMessage: AssistantMessage;
  tools: readonly AnyAgentTool[];
  options: Pick<AgentOptions<M>, "beforeToolCall" | "afterToolCall" | "toolAbortGraceMs">;
  signal: AbortSignal;
  emit(event: AgentEvent<M>): void;
  /** Called with each result message as soon as it and every earlier one are done. */
  onResultInOrder(message: ToolResultMessage): Promise<void>;
}

function errorResult(text: string): AgentToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** How long an aborted tool may take to stop (and report its own result) before it is abandoned. */
export const DEFAULT_TOOL_ABORT_GRACE_MS = 2000;

type Settled<T> = { done: true; value: T } | { done: false };

/**
 * Waits for `work`; once `signal` aborts, waits at most `graceMs` more. A tool or hook that
 * ignores its signal must not keep an aborted run alive.
 */
function settleWithin<T>(work: Promise<T>, signal: AbortSignal, graceMs: number): Promise<Settled<T>> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      timer = setTimeout(() => resolve({ done: false }), graceMs);
    };
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        cleanup();
        resolve({ done: true, value });
      },
      (error) => {
        cleanup();
        reject(error);
      },
    );
  });
}

function isToolResult(value: unknown): value is AgentToolResult {
  return typeof value === "object" && value !== null && Array.isArray((value as AgentToolResult).content);
}

/** Executes every tool call of `assistantMessage`; resolves with the results in call order. */
export async function runToolBatch<M extends RoleMessage>(
  input: ToolBatchInput<M>,
): Promise<ToolResultMessage[] & { terminate: boolean }> {
  const { assistantMessage, signal, emit } = input;
  const calls = assistantMessage.content.filter((c): c is ToolCall => c.type === "toolCall");
  const lock = new PathLock();
  const pending: Promise<AgentToolResult>[] = [];

  // End events fire as each call finishes (UIs show parallel progress); messages follow call order.
  const track = (
    call: ToolCall,
    args: Record<string, unknown>,
    work: Promise<AgentToolResult>,
    blockedReason?: string,
  ) => {
    pending.push(
      work.then((result) => {
        emit({
          type: "tool_execution_end",
          toolCallId: call.id,
          toolName: call.name,
          args,
          result,
          isError: result.isError === true,
          ...(blockedReason !== undefined ? { blockedReason } : {}),
        });
        return result;
      }),
    );
  };

  // Approval prompts go out one at a time in call order; each approved call starts at once.
  for (const call of calls) {
    emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
    const tool = input.tools.find((t) => t.name === call.name);
    if (!tool) {
      track(call, call.arguments, Promise.resolve(errorResult(`Tool "${call.name}" not found.`)));
      continue;
    }
    const validation = validateToolArgs(call.name, tool.parameters, call.arguments);
    if (!validation.ok) {
      track(call, call.arguments, Promise.resolve(errorResult(validation.message)));
      continue;
    }
    const info: ToolCallInfo = { toolCall: call, args: validation.args, tool };
    if (signal.aborted) {
      track(call, info.args, Promise.resolve(errorResult("Aborted before the tool ran.")));
      continue;
    }
    let blockedReason: string | undefined;
    if (input.options.beforeToolCall) {
      try {
        const hook = input.options.beforeToolCall;
        // A cooperative hook answers an abort itself (a cancelled approval); the grace lets it.
        const decision = await settleWithin(
          Promise.resolve(hook(info, { signal, assistantMessage })),
          signal,
          input.options.toolAbortGraceMs ?? DEFAULT_TOOL_ABORT_GRACE_MS,
        );
        if (!decision.done) {
          // The run was aborted while the call waited for approval.
          track(call, info.args, Promise.resolve(errorResult("Aborted before the tool ran.")));
          continue;
        }
        if (decision.value.action === "block") blockedReason = decision.value.reason;
      } catch (error) {
        blockedReason = `Tool call blocked: ${errorText(error)}`;
      }
    }
    if (blockedReason !== undefined) {
      track(call, info.args, Promise.resolve(errorResult(blockedReason)), blockedReason);
      continue;
    }
    const paths = tool.mutatedPaths?.(info.args) ?? [];
    track(
      call,
      info.args,
      lock.run(paths, () => executeOne(info, input)),
    );
  }

  const results: ToolResultMessage[] = [];
  let terminate = calls.length > 0;
  for (const [index, call] of calls.entries()) {
    const toolResult = await pending[index]!;
    if (toolResult.terminate !== true) terminate = false;
    const isError = toolResult.isError === true;
    const message: ToolResultMessage = {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: toolResult.content,
      ...(toolResult.details !== undefined ? { details: toolResult.details } : {}),
      isError,
      timestamp: Date.now(),
    };
    results.push(message);
    await input.onResultInOrder(message);
  }
  return Object.assign(results, { terminate });
}

async function executeOne<M extends RoleMessage>(
  info: ToolCallInfo,
  input: ToolBatchInput<M>,
): Promise<AgentToolResult> {
  const { toolCall, tool, args } = info;
  let result: AgentToolResult;
  const { signal } = input;
  try {
    if (signal.aborted) throw new Error("Aborted before the tool ran.");
    let finished = false;
    const running = Promise.resolve(
      tool.execute(args, {
        toolCallId: toolCall.id,
        signal,
        onUpdate: (partialResult) => {
          // An abandoned tool may keep talking; its updates no longer belong to any item.
          if (finished) return;
          input.emit({
            type: "tool_execution_update",
            toolCallId: toolCall.id,
            toolName: toolCall.name,
            args,
            partialResult,
          });
        },
      }),
    );
    const settled = await settleWithin(
      running,
      signal,
      input.options.toolAbortGraceMs ?? DEFAULT_TOOL_ABORT_GRACE_MS,
    );
    finished = true;
    if (!settled.done) {
      running.catch(() => undefined);
      result = errorResult("Aborted: the tool did not stop in time and was abandoned.");
    } else if (!isToolResult(settled.value)) {
      result = errorResult(`Tool "${toolCall.name}" returned no result content.`);
    } else {
      result = settled.value;
    }
  } catch (error) {
    result = errorResult(errorText(error));
  }
  if (input.options.afterToolCall) {
    try {
      const replaced = await input.options.afterToolCall(info, result);
      // a patched result still ends the run when the tool asked for it
      if (replaced) result = result.terminate === true ? { ...replaced, terminate: true } : replaced;
    } catch (error) {
      result = errorResult(`afterToolCall failed: ${errorText(error)}`);
    }
  }
  return result;
}
