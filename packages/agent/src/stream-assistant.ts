/**
 * One model call: stream the provider, forward partial messages, and retry transient
 * failures with backoff. A retried attempt that already showed output is withdrawn
 * (`message_end` with `dropped: true`) so a UI never keeps a half message from a failed try.
 */
import {
  type AssistantMessage,
  type Context,
  type ErrorKind,
  emptyAssistantMessage,
  type Model,
  type StopReason,
  waitOrAbort,
} from "@knightcode/ai";
import { isTransientFailure, retryDelayMs, retryLimit } from "./retry.ts";
import type { AgentEvent, AgentOptions, RetryOptions, RoleMessage } from "./types.ts";

/** A final assistant message and whether `message_start` was already emitted for it. */
export interface StreamedAssistant {
  message: AssistantMessage;
  started: boolean;
}

/** Builds an assistant message that stands for a failure the provider never reported itself. */
export function failureMessage(
  model: Model,
  text: string,
  stopReason: Extract<StopReason, "error" | "aborted">,
  errorKind: ErrorKind = "other",
): AssistantMessage {
  return {
    ...emptyAssistantMessage(model),
    stopReason,
    errorMessage: text,
    ...(stopReason === "error" ? { errorKind } : {}),
  };
}

/** What one call needs. */
export interface StreamAssistantInput<M extends RoleMessage> {
  options: AgentOptions<M>;
  /**
   * Builds the request context; called for every attempt, right before the request goes
   * out, so steers that arrive during the API key lookup or a retry wait still make it.
   */
  prepareContext(): Promise<Context>;
  retry: RetryOptions;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  signal: AbortSignal;
  emit(event: AgentEvent<M>): void;
}

async function attempt<M extends RoleMessage>(
  input: StreamAssistantInput<M>,
): Promise<StreamedAssistant & { retryAfterMs?: number }> {
  const { options, signal, emit } = input;
  let started = false;
  try {
    const apiKey = await options.getApiKey?.(options.model);
    const context = await input.prepareContext();
    if (signal.aborted) throw signal.reason;
    const stream = options.streamFn(options.model, context, {
      ...options.streamOptions,
      ...(apiKey !== undefined ? { apiKey } : {}),
      signal,
    });
    for await (const event of stream) {
      switch (event.type) {
        case "start":
          // Wait for real content: an HTTP error after `start` should not flash an empty item.
          break;
        case "done":
          return { message: event.message, started };
        case "error":
          return {
            message: event.error,
            started,
            ...(event.retryAfterMs !== undefined ? { retryAfterMs: event.retryAfterMs } : {}),
          };
        default: {
          if (!started) {
            started = true;
            emit({ type: "message_start", message: event.partial });
          }
          emit({ type: "message_update", message: event.partial, event });
          const wait = outputRoom(options, signal);
          // only a real wait awaits: an `await` per event would split output batches
          if (wait !== undefined) await wait;
        }
      }
    }
    return {
      message: failureMessage(
        options.model,
        "The model stream ended without a final event.",
        "error",
        "network",
      ),
      started,
    };
  } catch (error) {
    if (signal.aborted) return { message: failureMessage(options.model, "Aborted", "aborted"), started };
    const text = error instanceof Error ? error.message : String(error);
    return { message: failureMessage(options.model, text, "error"), started };
  }
}

/** Waits while the consumer of the events asks for it (`outputReady`), or until the turn is aborted. */
function outputRoom<M extends RoleMessage>(
  options: AgentOptions<M>,
  signal: AbortSignal,
): Promise<void> | undefined {
  const wait = options.outputReady?.();
  if (wait === undefined || signal.aborted) return undefined;
  return waitOrAbort(wait, signal);
}

/** Streams one assistant message, retrying transient failures; resolves with the final message. */
export async function streamAssistant<M extends RoleMessage>(
  input: StreamAssistantInput<M>,
): Promise<StreamedAssistant> {
  const { retry, signal, emit } = input;
  for (let retriesDone = 0; ; retriesDone++) {
    const result = await attempt(input);
    const { message } = result;
    if (signal.aborted && message.stopReason === "error") {
      return { message: { ...message, stopReason: "aborted" }, started: result.started };
    }
    const limit = retryLimit(message, retry);
    const canRetry = retry.enabled && retriesDone < limit && !signal.aborted && isTransientFailure(message);
    const delayMs = canRetry ? retryDelayMs(retriesDone + 1, retry, result.retryAfterMs) : undefined;
    if (delayMs === undefined) return result;
    if (result.started) emit({ type: "message_end", message, dropped: true });
    emit({
      type: "retry_scheduled",
      attempt: retriesDone + 1,
      maxRetries: limit,
      delayMs,
      error: message,
    });
    try {
      await input.sleep(delayMs, signal);
    } catch {
      return { message: failureMessage(input.options.model, "Aborted", "aborted"), started: false };
    }
  }
}
