import {
  defaultCallId,
  type MockScript,
  type RecordedRequest,
  scriptStopReason,
  scriptUsage,
  splitIntoDeltas,
} from "./script.ts";
import { vendorErrorObject } from "./vendor-errors.ts";

const FINISH = { stop: "stop", length: "length", toolUse: "tool_calls" } as const;

/**
 * Renders a script as an OpenAI Chat Completions stream: `chat.completion.chunk` frames with
 * content, `reasoning_content` (the field OpenAI-compatible servers such as vLLM and DeepSeek
 * use) and indexed `tool_calls` deltas, a finish chunk, a usage chunk when the request asked
 * for one via `stream_options.include_usage`, then `[DONE]`.
 */
export function renderChatCompletions(script: MockScript, request: RecordedRequest): string[] {
  const body = (request.body ?? {}) as { model?: string; stream_options?: { include_usage?: boolean } };
  const id = `chatcmpl-mock${request.index}`;
  const created = 1_700_000_000;
  const model = body.model ?? "mock-model";
  const frames: string[] = [];
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    frames.push(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`,
    );
  const delta = (d: Record<string, unknown>) => chunk([{ index: 0, delta: d, finish_reason: null }]);

  delta({ role: "assistant", content: "" });
  let toolIndex = 0;
  for (const step of script.steps ?? []) {
    if (step.type === "text") {
      for (const piece of splitIntoDeltas(step.text, step.deltas)) delta({ content: piece });
    } else if (step.type === "reasoning") {
      for (const piece of splitIntoDeltas(step.text, step.deltas)) delta({ reasoning_content: piece });
    } else {
      const index = toolIndex++;
      const callId = step.id ?? defaultCallId("call_", request.index, index);
      delta({
        tool_calls: [{ index, id: callId, type: "function", function: { name: step.name, arguments: "" } }],
      });
      for (const piece of splitIntoDeltas(JSON.stringify(step.arguments), step.deltas)) {
        delta({ tool_calls: [{ index, function: { arguments: piece } }] });
      }
    }
  }
  if (script.streamError) {
    frames.push(
      `data: ${JSON.stringify({ error: vendorErrorObject(script.streamError, "chat-completions") })}\n\n`,
    );
    return frames;
  }
  chunk([{ index: 0, delta: {}, finish_reason: FINISH[scriptStopReason(script)] }]);
  if (body.stream_options?.include_usage) {
    const usage = scriptUsage(script, request);
    const prompt = usage.input + usage.cacheRead;
    chunk([], {
      usage: {
        prompt_tokens: prompt,
        completion_tokens: usage.output,
        total_tokens: prompt + usage.output,
        prompt_tokens_details: { cached_tokens: usage.cacheRead },
      },
    });
  }
  frames.push("data: [DONE]\n\n");
  return frames;
}
