/**
 * The gate every tool call passes before it runs: the extension `tool_call` hook, then
 * the approvals package's verdict for the thread's mode and grants, and when it asks,
 * a routed `item/toolCall/requestApproval`. Refusals are remembered per call so the
 * stored tool result says `declined`, and the decline message is the reason the model reads.
 */
import type { ToolCallDecision, ToolCallInfo } from "@knightcode/agent";
import { applyDecision, gateToolCall as gate } from "@knightcode/approvals";
import { callHook } from "../extensions/extension-hooks.ts";
import type { RunningTurn, ThreadRuntime } from "../threads/thread-runtime.ts";
import { approvalPreview } from "./approval-preview.ts";

/**
 * Decides whether one call runs; asks a subscriber when the mode says so. `homeDir` is
 * the home the tools expand `~` with, so a `~/x` write is judged where it lands.
 */
export async function gateToolCall(
  runtime: ThreadRuntime,
  running: RunningTurn,
  call: ToolCallInfo,
  signal: AbortSignal,
  homeDir: string | undefined,
): Promise<ToolCallDecision> {
  const hooks = runtime.extensions.hooks;
  const toolCallId = call.toolCall.id;
  const extension = await callHook(
    hooks.toolCall && (() => hooks.toolCall!({ toolCallId, toolName: call.tool.name, input: call.args })),
    { action: "allow" as const },
    (w) => runtime.warn(w),
  );
  if (extension.action === "block") return extension;
  const verdict = gate({
    toolName: call.tool.name,
    input: call.args,
    cwd: runtime.cwd,
    mode: runtime.settings.approvalMode,
    grants: runtime.grants,
    ...(homeDir !== undefined ? { homeDir } : {}),
  });
  if (verdict.action !== "ask") return verdict;
  const request = verdict.request;
  const preview = await approvalPreview(call, runtime.cwd);
  const answer = await runtime.host.broker.ask(
    {
      threadId: runtime.id,
      turnId: running.live.id,
      itemId: toolCallId,
      toolName: call.tool.name,
      input: call.args,
      decisions: [...request.decisions],
      ...(request.reason !== undefined ? { reason: request.reason } : {}),
      ...(request.prefix !== undefined ? { prefix: request.prefix.join(" ") } : {}),
      ...(preview !== undefined ? { preview } : {}),
    },
    signal,
  );
  const applied =
    answer.kind === "cancelled"
      ? { outcome: "cancel" as const, grants: runtime.grants, message: undefined }
      : applyDecision(request, answer.raw, runtime.grants);
  runtime.grants = applied.grants;
  if (applied.outcome === "run") return { action: "allow" };
  running.refusedCalls.set(toolCallId, applied.outcome === "cancel" ? "cancelled" : "declined");
  const reason =
    applied.outcome === "cancel"
      ? "The user cancelled this tool call."
      : (applied.message ?? "The user declined this tool call.");
  return { action: "block", reason };
}
