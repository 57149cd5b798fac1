/**
 * Vendor-neutral scripts for the mock model server. A script says what the "model" replies
 * (text, reasoning, tool calls, usage, stop reason) or how it fails; the server renders it
 * into the wire format of whichever endpoint the request hit.
 */

/** One block of the scripted reply, streamed in `deltas` pieces (default 1). */
export type MockStep =
  | { type: "text"; text: string; deltas?: number }
  | { type: "reasoning"; text: string; deltas?: number; signature?: string }
  | {
      type: "toolCall";
      name: string;
      arguments: Record<string, unknown>;
      /** The provider call ID; defaults to a deterministic one per request. */
      id?: string;
      deltas?: number;
    };

/** Token counts the scripted reply reports. */
export interface MockUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** HTTP failures rendered with each vendor's real error body. */
export type MockErrorKind = "auth" | "rateLimit" | "server" | "overloaded" | "contextOverflow" | "badRequest";

/** A scripted HTTP error instead of a stream. */
export interface MockError {
  kind: MockErrorKind;
  /** Seconds for the `retry-after` header (rate limits and overload). */
  retryAfterSeconds?: number;
  /** Overrides the vendor's default message text. */
  message?: string;
}

/** What the mock answers to one request. */
export interface MockScript {
  steps?: MockStep[];
  /** Defaults to an estimate from the request and reply sizes. */
  usage?: MockUsage;
  /** Defaults to `toolUse` when the reply has tool calls, else `stop`. */
  stopReason?: "stop" | "length" | "toolUse";
  /** Answer with this HTTP error instead of a stream. */
  error?: MockError;
  /**
   * After the steps, send the vendor's in-stream error event instead of the normal ending
   * (Anthropic `event: error`, Responses `response.failed`, Chat Completions `{"error"}` chunk).
   */
  streamError?: MockError;
  /** Break the connection after this many SSE events (a stream cut mid-way). */
  cutAfterEvents?: number;
  /**
   * With `cutAfterEvents`: hold the cut until this settles, so a test can cut only after
   * the client has shown what was sent (otherwise a loaded machine may cut first).
   */
  cutWhen?: Promise<unknown>;
  /** Stop sending after this many SSE events and hold the connection until the client leaves. */
  stallAfterEvents?: number;
  /**
   * Send this many SSE events, then hold the rest until `resumeWhen` settles (a test
   * disconnects a client or signals the server while the turn is mid-stream).
   */
  pauseAfterEvents?: number;
  resumeWhen?: Promise<unknown>;
  /** Pause between SSE events, for slow-delta scenarios. */
  delayMs?: number;
}

/** The endpoint families the mock speaks. */
export type MockWireFormat = "chat-completions" | "responses" | "anthropic-messages";

/** One request as the mock received it. */
export interface RecordedRequest {
  /** Zero-based arrival order. */
  index: number;
  method: string;
  path: string;
  format: MockWireFormat | "unknown";
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body, or `undefined` when the body was not JSON. */
  body: unknown;
  rawBody: string;
}

/** A script, or a function computing one from the request (e.g. to echo what was sent). */
export type MockResponder = MockScript | ((request: RecordedRequest) => MockScript);

/** Convenience: a plain text reply in `deltas` pieces. */
export function textReply(text: string, deltas = 1): MockScript {
  return { steps: [{ type: "text", text, deltas }] };
}

/** Convenience: a reply that calls the given tools (in parallel, in order). */
export function toolCallReply(
  ...calls: { name: string; arguments: Record<string, unknown>; id?: string }[]
): MockScript {
  return { steps: calls.map((call) => ({ type: "toolCall" as const, ...call })) };
}

/** Splits `text` into `count` contiguous pieces of near-equal length (by code point). */
export function splitIntoDeltas(text: string, count = 1): string[] {
  // Without surrogates, code points are UTF-16 units: slice by index, so a reply of tens of
  // MiB splits without an array of one string per character.
  const units = !/[\uD800-\uDFFF]/.test(text);
  const chars = units ? undefined : Array.from(text);
  const length = chars ? chars.length : text.length;
  const n = Math.max(1, Math.min(count, Math.max(length, 1)));
  const pieces: string[] = [];
  for (let i = 0; i < n; i++) {
    const from = Math.floor((i * length) / n);
    const to = Math.floor(((i + 1) * length) / n);
    pieces.push(chars ? chars.slice(from, to).join("") : text.slice(from, to));
  }
  return pieces;
}

/** The stop reason a script ends with. */
export function scriptStopReason(script: MockScript): "stop" | "length" | "toolUse" {
  if (script.stopReason) return script.stopReason;
  return script.steps?.some((step) => step.type === "toolCall") ? "toolUse" : "stop";
}

/** The usage a script reports, estimating (chars / 4) what it does not state. */
export function scriptUsage(script: MockScript, request: RecordedRequest): Required<MockUsage> {
  const outputChars = (script.steps ?? []).reduce(
    (sum, step) =>
      sum + (step.type === "toolCall" ? JSON.stringify(step.arguments).length : step.text.length),
    0,
  );
  return {
    input: script.usage?.input ?? Math.ceil(request.rawBody.length / 4),
    output: script.usage?.output ?? Math.ceil(outputChars / 4),
    cacheRead: script.usage?.cacheRead ?? 0,
    cacheWrite: script.usage?.cacheWrite ?? 0,
  };
}

/** The call ID of the `i`-th tool call in request `requestIndex`, when the script gives none. */
export function defaultCallId(prefix: string, requestIndex: number, i: number): string {
  return `${prefix}${requestIndex}_${i}`;
}
