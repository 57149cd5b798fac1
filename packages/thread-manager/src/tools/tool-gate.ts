/**
 * The gate every tool call passes before it runs: the extension `tool_call` hook, then
 * the approvals package's verdict for the thread's mode and grants, and when it asks,
 * a routed `item/toolCall/requestApproval`. Refusals are remembered per call so the
 * stored tool result says `declined`, and the decline message is the reason the model reads.
 */
import type { ToolCallDecision, ToolCallInfo } from "@knightcode/agent";
import { applyDecision, gateToolCall as gate } from "@knightcode/approvals";
import { callHook } from "../extensions/extension-hooks.ts";
import type { Turn } from "../turns/turn.ts";
import type { TurnPort } from "../turns/turn-port.ts";
import { approvalPreview } from "./approval-preview.ts";

/**
 * Decides whether one call runs; asks a subscriber when the mode says so. `homeDir` is
 * the home the tools expand `~` with, so a `~/x` write is judged where it lands.
 */
export async function gateToolCall(
  port: TurnPort,
  turn: Turn,
  call: ToolCallInfo,
  signal: AbortSignal,
  homeDir: string | undefined,
): Promise<ToolCallDecision> {
  const hooks = port.hooks();
  const toolCallId = call.toolCall.id;
  const extension = await callHook(
    hooks.toolCall && (() => hooks.toolCall!({ toolCallId, toolName: call.tool.name, input: call.args })),
    { action: "allow" as const },
    (w) => port.warn(w),
  );
  if (extension.action === "block") return extension;
  const verdict = gate({
    toolName: call.tool.name,
    input: call.args,
    cwd: port.cwd,
    mode: port.approvals.mode(),
    grants: port.approvals.grants,
    ...(homeDir !== undefined ? { homeDir } : {}),
  });
  if (verdict.action !== "ask") return verdict;
  const request = verdict.request;
  const preview = await approvalPreview(call, port.cwd);
  const answer = await port.approvals.broker.ask(
    {
      threadId: port.threadId,
      turnId: turn.id,
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
      ? { outcome: "cancel" as const, grants: port.approvals.grants, message: undefined }
      : applyDecision(request, answer.raw, port.approvals.grants);
  port.approvals.grants = applied.grants;
  if (applied.outcome === "run") return { action: "allow" };
  turn.refusedCalls.set(toolCallId, applied.outcome === "cancel" ? "cancelled" : "declined");
  const reason =
    applied.outcome === "cancel"
      ? "The user cancelled this tool call."
      : (applied.message ?? "The user declined this tool call.");
  return { action: "block", reason };
}
