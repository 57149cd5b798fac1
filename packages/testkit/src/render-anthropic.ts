import {
  defaultCallId,
  type MockScript,
  type RecordedRequest,
  scriptStopReason,
  scriptUsage,
  splitIntoDeltas,
} from "./script.ts";
import { vendorErrorObject } from "./vendor-errors.ts";

const STOP = { stop: "end_turn", length: "max_tokens", toolUse: "tool_use" } as const;

/**
 * Renders a script as an Anthropic Messages stream: `message_start` with input usage, one
 * content block per step (thinking with `thinking_delta` and `signature_delta`, text,
 * `tool_use` with `input_json_delta`), `message_delta` with the stop reason and output
 * usage, then `message_stop`.
 */
export function renderAnthropic(script: MockScript, request: RecordedRequest): string[] {
  const body = (request.body ?? {}) as { model?: string };
  const frames: string[] = [];
  const emit = (type: string, data: Record<string, unknown>) =>
    frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const usage = scriptUsage(script, request);

  emit("message_start", {
    message: {
      id: `msg_mock${request.index}`,
      type: "message",
      role: "assistant",
      content: [],
      model: body.model ?? "mock-model",
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        cache_creation_input_tokens: usage.cacheWrite,
        cache_read_input_tokens: usage.cacheRead,
        output_tokens: 1,
      },
    },
  });
  emit("ping", {});

  let toolIndex = 0;
  for (const [index, step] of (script.steps ?? []).entries()) {
    const delta = (d: Record<string, unknown>) => emit("content_block_delta", { index, delta: d });
    if (step.type === "text") {
      emit("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const piece of splitIntoDeltas(step.text, step.deltas)) delta({ type: "text_delta", text: piece });
    } else if (step.type === "reasoning") {
      emit("content_block_start", {
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      });
      for (const piece of splitIntoDeltas(step.text, step.deltas)) {
        delta({ type: "thinking_delta", thinking: piece });
      }
      delta({ type: "signature_delta", signature: step.signature ?? `sig_mock${request.index}_${index}` });
    } else {
      const id = step.id ?? defaultCallId("toolu_", request.index, toolIndex++);
      emit("content_block_start", {
        index,
        content_block: { type: "tool_use", id, name: step.name, input: {} },
      });
      for (const piece of splitIntoDeltas(JSON.stringify(step.arguments), step.deltas)) {
        delta({ type: "input_json_delta", partial_json: piece });
      }
    }
    emit("content_block_stop", { index });
  }

  if (script.streamError) {
    emit("error", { error: vendorErrorObject(script.streamError, "anthropic-messages") });
    return frames;
  }
  emit("message_delta", {
    delta: { stop_reason: STOP[scriptStopReason(script)], stop_sequence: null },
    usage: {
      input_tokens: usage.input,
      cache_creation_input_tokens: usage.cacheWrite,
      cache_read_input_tokens: usage.cacheRead,
      output_tokens: usage.output,
    },
  });
  emit("message_stop", {});
  return frames;
}
