import { AnthropicError, APIError } from "@anthropic-ai/sdk";
import { readServerSentEvents } from "../sse.ts";
import { isAbortError } from "./shared.ts";

/**
 * Reads the body of a successful Anthropic Messages streaming response and calls `onData`
 * with each event's parsed JSON, synchronously and in order.
 *
 * It reproduces what the SDK's `Stream` does, so failures are classified exactly as before:
 * `ping` is skipped, as are events without data; an event without an `event:` line (some
 * proxies) is read by the `type` in its data, and skipped when it has none; an `event: error`
 * becomes the SDK's `APIError` (no status, the vendor body and its `error.type`, the
 * response headers); broken JSON throws `JSON.parse`'s `SyntaxError`; a transport abort ends
 * the stream quietly (the caller then sees a cut or its own abort). The SDK is still what
 * builds, sends and authenticates the request and what turns an HTTP error status into its
 * typed error before this runs.
 */
export async function readAnthropicEvents<T>(
  response: Response,
  signal: AbortSignal | undefined,
  onData: (data: T) => void,
  ready?: () => Promise<void> | undefined,
): Promise<void> {
  if (!response.body) throw new AnthropicError("Attempted to iterate over a response with no body");
  try {
    await readServerSentEvents(
      response.body,
      (sse) => {
        if (sse.event === "ping") return false;
        if (sse.event === undefined) {
          // Some proxies send no `event:` lines; each payload still names its `type`.
          if (!sse.data) return false;
          const data = safeJson(sse.data) as { type?: unknown } | undefined;
          if (typeof data?.type !== "string" || data.type === "ping") return false;
          if (data.type === "error") throw vendorError(data, response.headers);
          onData(data as T);
          return false;
        }
        if (sse.event === "error") throw vendorError(safeJson(sse.data) ?? sse.data, response.headers);
        if (!sse.data) return false;
        onData(JSON.parse(sse.data) as T);
        return false;
      },
      signal,
      ready,
    );
  } catch (error) {
    // Like the SDK, an abort ends the stream quietly; the provider then reports a cut, or the
    // caller's abort, unless `message_stop` had already arrived.
    if (isAbortError(error) || (signal?.aborted && error === signal.reason)) return;
    throw error;
  }
}

/** The SDK's error for an in-stream `error` event: no status, the vendor body and its `error.type`. */
function vendorError(body: unknown, headers: Headers): APIError {
  const type = (body as { error?: { type?: unknown } } | undefined)?.error?.type;
  return new APIError(
    undefined,
    body as object,
    undefined,
    headers,
    type as ConstructorParameters<typeof APIError>[4],
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
