import { APIError, OpenAIError } from "openai";
import { readServerSentEvents } from "../sse.ts";
import { isAbortError } from "./shared.ts";

/**
 * Reads the body of a successful OpenAI streaming response (Chat Completions or Responses)
 * and calls `onData` with each event's parsed JSON, synchronously and in order.
 *
 * It reproduces what the SDK's `Stream` does in its default mode, so failures are classified
 * exactly as before: reading stops at `[DONE]`; broken JSON is a `SyntaxError`; an `error`
 * event or a payload with an `error` member becomes the SDK's `APIError` (no status, the
 * response headers attached); a transport abort ends the stream quietly, leaving the caller
 * to report a cut. The SDK is still what builds, sends and authenticates the
 * request and what turns an HTTP error status into its typed error before this runs.
 * Resolves `true` when the stream ended with `[DONE]`, `false` when the body just ended.
 */
export async function readOpenAIEvents<T>(
  response: Response,
  signal: AbortSignal | undefined,
  onData: (data: T) => void,
  ready?: () => Promise<void> | undefined,
): Promise<boolean> {
  if (!response.body) throw new OpenAIError("Attempted to iterate over a response with no body");
  let done = false;
  try {
    await readServerSentEvents(
      response.body,
      (sse) => {
        if (sse.data === "[DONE]") {
          done = true;
          return true;
        }
        let data: { error?: unknown } | null;
        try {
          data = JSON.parse(sse.data);
        } catch {
          // An error event whose text is not JSON still reports that text.
          if (sse.event === "error")
            throw new APIError(undefined, { message: sse.data }, undefined, response.headers);
          throw new SyntaxError("Error reading response: malformed server-sent event JSON.");
        }
        if (sse.event === "error") {
          throw new APIError(undefined, (data?.error ?? data) as object, undefined, response.headers);
        }
        if (data?.error) throw new APIError(undefined, data.error as object, undefined, response.headers);
        onData(data as T);
        return false;
      },
      signal,
      ready,
    );
    return done;
  } catch (error) {
    // Like the SDK, a transport abort ends the stream quietly (the caller then reports a
    // cut). The caller's own abort propagates: the SDK stopped between events once the signal
    // fired, so a finish chunk that arrived in the same read must not turn it into a `done`.
    if (!signal?.aborted && !(error instanceof APIError) && isAbortError(error)) return false;
    throw error;
  }
}
