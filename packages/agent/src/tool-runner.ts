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
  options: Pick<AgentOptions<M>, "beforeToolCall" | "afterToolCall">;
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

/** Executes every tool call of `assistantMessage`; resolves with the results in call order. */
export async function runToolBatch<M extends RoleMessage>(
  input: ToolBatchInput<M>,
): Promise<ToolResultMessage[]> {
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
        const decision = await input.options.beforeToolCall(info, { signal, assistantMessage });
        if (decision.action === "block") blockedReason = decision.reason;
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
  for (const [index, call] of calls.entries()) {
    const toolResult = await pending[index]!;
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
  return results;
}

async function executeOne<M extends RoleMessage>(
  info: ToolCallInfo,
  input: ToolBatchInput<M>,
): Promise<AgentToolResult> {
  const { toolCall, tool, args } = info;
  let result: AgentToolResult;
  try {
    if (input.signal.aborted) throw new Error("Aborted before the tool ran.");
    result = await tool.execute(args, {
      toolCallId: toolCall.id,
      signal: input.signal,
      onUpdate: (partialResult) =>
        input.emit({
          type: "tool_execution_update",
          toolCallId: toolCall.id,
          toolName: toolCall.name,
          args,
          partialResult,
        }),
    });
  } catch (error) {
    result = errorResult(errorText(error));
  }
  if (input.options.afterToolCall) {
    try {
      const replaced = await input.options.afterToolCall(info, result);
      if (replaced) result = replaced;
    } catch (error) {
      result = errorResult(`afterToolCall failed: ${errorText(error)}`);
    }
  }
  return result;
}
