import { classifyError, describeFailure } from "../errors.ts";
import { createAssistantMessageStream } from "../event-stream.ts";
import { StreamCutError } from "../message-builder.ts";
import type { AssistantMessage, AssistantMessageEvent, StreamFunction } from "../types.ts";
import { emptyAssistantMessage } from "../types.ts";

/**
 * Wraps a stream function KnightCode did not write (an extension's own provider) so the
 * agent loop can rely on it like on a built-in one: it never throws, it always ends with
 * exactly one `done` or `error`, an error carries an `errorKind`, and an abort ends the
 * stream at once as `aborted` even when the foreign code ignores the signal.
 */
export function guardForeignStream(foreign: StreamFunction): StreamFunction {
  return (model, context, options) => {
    const { stream, push, ready } = createAssistantMessageStream();
    const startedAt = performance.now();
    let last: AssistantMessage = emptyAssistantMessage(model);
    let ended = false;
    const end = (event: AssistantMessageEvent) => {
      if (ended) return;
      ended = true;
      options?.signal?.removeEventListener("abort", onAbort);
      push(event);
    };
    const fail = (error: unknown) => {
      const failure = describeFailure(error, options?.signal);
      const message: AssistantMessage = {
        ...last,
        stopReason: failure.aborted ? "aborted" : "error",
        errorMessage: failure.message,
        durationMs: Math.round(performance.now() - startedAt),
      };
      if (!failure.aborted) message.errorKind = failure.kind;
      end({ type: "error", reason: failure.aborted ? "aborted" : "error", error: message });
    };
    const onAbort = () => fail(options?.signal?.reason ?? new DOMException("Aborted", "AbortError"));
    if (options?.signal?.aborted) {
      onAbort();
      return stream;
    }
    options?.signal?.addEventListener("abort", onAbort, { once: true });

    (async () => {
      try {
        for await (const event of foreign(model, context, options)) {
          if (ended) return;
          if (event.type === "done") {
            end(event);
            return;
          }
          if (event.type === "error") {
            end(classified(event, options?.signal?.aborted === true));
            return;
          }
          last = event.partial;
          push(event);
          await ready();
        }
        fail(new StreamCutError());
      } catch (error) {
        fail(error);
      }
    })();
    return stream;
  };
}

/** An `error` event with the kind the foreign code did not set, from its message. */
function classified(
  event: Extract<AssistantMessageEvent, { type: "error" }>,
  aborted: boolean,
): AssistantMessageEvent {
  const reason = aborted ? "aborted" : event.reason;
  const error: AssistantMessage = { ...event.error, stopReason: reason };
  if (reason === "error" && error.errorKind === undefined) {
    error.errorKind = classifyError(undefined, error.errorMessage ?? "");
  }
  if (reason === "aborted") delete error.errorKind;
  return { ...event, reason, error };
}
