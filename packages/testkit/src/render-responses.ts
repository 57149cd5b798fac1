import {
  defaultCallId,
  type MockScript,
  type RecordedRequest,
  scriptStopReason,
  scriptUsage,
  splitIntoDeltas,
} from "./script.ts";
import { vendorErrorObject } from "./vendor-errors.ts";

/**
 * Renders a script as an OpenAI Responses stream: `response.created`, then one output item
 * per step (reasoning with summary-text deltas, a message with output-text deltas, function
 * calls with argument deltas), then `response.completed` — or `response.incomplete` with
 * `max_output_tokens` when the script stops for length — carrying the usage.
 */
export function renderResponses(script: MockScript, request: RecordedRequest): string[] {
  const body = (request.body ?? {}) as { model?: string };
  const frames: string[] = [];
  let sequence = 0;
  const emit = (type: string, data: Record<string, unknown>) =>
    frames.push(
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`,
    );
  const response = {
    id: `resp_mock${request.index}`,
    object: "response",
    created_at: 1_700_000_000,
    model: body.model ?? "mock-model",
    status: "in_progress",
    output: [] as unknown[],
    usage: null as unknown,
    incomplete_details: null as unknown,
    error: null,
  };
  emit("response.created", { response: { ...response, output: [] } });
  emit("response.in_progress", { response: { ...response, output: [] } });

  let toolIndex = 0;
  for (const [outputIndex, step] of (script.steps ?? []).entries()) {
    if (step.type === "reasoning") {
      const itemId = `rs_mock${request.index}_${outputIndex}`;
      emit("response.output_item.added", {
        output_index: outputIndex,
        item: { type: "reasoning", id: itemId, summary: [] },
      });
      const at = { item_id: itemId, output_index: outputIndex, summary_index: 0 };
      emit("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } });
      for (const piece of splitIntoDeltas(step.text, step.deltas)) {
        emit("response.reasoning_summary_text.delta", { ...at, delta: piece });
      }
      emit("response.reasoning_summary_text.done", { ...at, text: step.text });
      emit("response.reasoning_summary_part.done", {
        ...at,
        part: { type: "summary_text", text: step.text },
      });
      const item = {
        type: "reasoning",
        id: itemId,
        summary: [{ type: "summary_text", text: step.text }],
        encrypted_content: step.signature ?? `enc_mock${request.index}_${outputIndex}`,
      };
      emit("response.output_item.done", { output_index: outputIndex, item });
      response.output.push(item);
    } else if (step.type === "text") {
      const itemId = `msg_mock${request.index}_${outputIndex}`;
      const base = { type: "message", id: itemId, role: "assistant" };
      emit("response.output_item.added", {
        output_index: outputIndex,
        item: { ...base, status: "in_progress", content: [] },
      });
      const at = { item_id: itemId, output_index: outputIndex, content_index: 0 };
      emit("response.content_part.added", {
        ...at,
        part: { type: "output_text", text: "", annotations: [] },
      });
      for (const piece of splitIntoDeltas(step.text, step.deltas)) {
        emit("response.output_text.delta", { ...at, delta: piece, logprobs: [] });
      }
      emit("response.output_text.done", { ...at, text: step.text, logprobs: [] });
      const part = { type: "output_text", text: step.text, annotations: [] };
      emit("response.content_part.done", { ...at, part });
      const item = { ...base, status: "completed", content: [part] };
      emit("response.output_item.done", { output_index: outputIndex, item });
      response.output.push(item);
    } else {
      const itemId = `fc_mock${request.index}_${outputIndex}`;
      const callId = step.id ?? defaultCallId("call_", request.index, toolIndex++);
      const args = JSON.stringify(step.arguments);
      const base = { type: "function_call", id: itemId, call_id: callId, name: step.name };
      emit("response.output_item.added", {
        output_index: outputIndex,
        item: { ...base, arguments: "", status: "in_progress" },
      });
      for (const piece of splitIntoDeltas(args, step.deltas)) {
        emit("response.function_call_arguments.delta", {
          item_id: itemId,
          output_index: outputIndex,
          delta: piece,
        });
      }
      emit("response.function_call_arguments.done", {
        item_id: itemId,
        output_index: outputIndex,
        arguments: args,
      });
      const item = { ...base, arguments: args, status: "completed" };
      emit("response.output_item.done", { output_index: outputIndex, item });
      response.output.push(item);
    }
  }

  if (script.streamError) {
    const { code, message } = vendorErrorObject(script.streamError, "responses");
    emit("response.failed", { response: { ...response, status: "failed", error: { code, message } } });
    return frames;
  }
  const usage = scriptUsage(script, request);
  const input = usage.input + usage.cacheRead;
  const final = {
    ...response,
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: usage.cacheRead },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + usage.output,
    },
  };
  if (scriptStopReason(script) === "length") {
    emit("response.incomplete", {
      response: { ...final, status: "incomplete", incomplete_details: { reason: "max_output_tokens" } },
    });
  } else {
    emit("response.completed", { response: { ...final, status: "completed" } });
  }
  return frames;
}
