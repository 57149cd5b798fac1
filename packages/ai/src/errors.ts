import type { ErrorKind } from "./types.ts";

/** What a provider failure looks like once normalized. */
export interface ProviderFailure {
  kind: ErrorKind;
  message: string;
  status?: number;
  /** From `retry-after-ms` / `retry-after` headers or the message text, when present. */
  retryAfterMs?: number;
  /** True when the caller's signal ended the request. */
  aborted: boolean;
}

const CONTEXT_OVERFLOW =
  /prompt is too long|context[ _-]?length|context window|maximum context|exceeds the (available )?context|exceed_context_size|too many tokens|input is too long|reduce the length|token limit|request too large for model/i;
const AUTH =
  /invalid[ _-]?(x-)?api[ _-]?key|incorrect api key|authentication|unauthori[sz]ed|permission denied|forbidden/i;
const RATE_LIMIT = /rate[ _-]?limit|too many requests|quota|resource[ _]exhausted/i;
const PROVIDER =
  /overloaded|internal server error|server[ _]error|bad gateway|service unavailable|gateway timeout|upstream/i;
const NETWORK =
  /ECONNRESET|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EPIPE|socket|network|fetch failed|connection|terminated|timed? ?out|stream ended|unexpected end/i;

/**
 * Classifies a failure from its HTTP status (when there is one) and its text. Context
 * overflow is checked first because vendors report it as a plain 400 (or 413).
 */
export function classifyError(status: number | undefined, text: string): ErrorKind {
  if (status === 413 || CONTEXT_OVERFLOW.test(text)) return "contextOverflow";
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rateLimit";
  if (status !== undefined && status >= 500) return "provider";
  if (status !== undefined) {
    if (AUTH.test(text)) return "auth";
    if (RATE_LIMIT.test(text)) return "rateLimit";
    return "other";
  }
  if (AUTH.test(text)) return "auth";
  if (RATE_LIMIT.test(text)) return "rateLimit";
  if (PROVIDER.test(text)) return "provider";
  if (NETWORK.test(text)) return "network";
  return "other";
}

/** Reads `retry-after-ms`, `retry-after` (seconds or HTTP date) or a "try again in Ns" hint. */
export function parseRetryAfter(
  headers: Headers | undefined,
  text = "",
  now = Date.now(),
): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers?.get("retry-after");
  if (after) {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const hint = /try again in (\d+(?:\.\d+)?)\s*(ms|s|seconds?)\b/i.exec(text);
  if (hint) return Number(hint[1]) * (hint[2]!.toLowerCase() === "ms" ? 1 : 1000);
  return undefined;
}

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  status?: unknown;
  headers?: unknown;
  error?: unknown;
  cause?: unknown;
}

/** The vendor's error object from an SDK error body (`{error: {...}}` or the object itself). */
function innerError(body: unknown): { message?: unknown; type?: unknown; code?: unknown } | undefined {
  if (!body || typeof body !== "object") return undefined;
  const record = body as { error?: unknown };
  return record.error && typeof record.error === "object" ? (record.error as object) : (body as object);
}

/** Normalizes anything a provider SDK or fetch throws into a `ProviderFailure`. */
export function describeFailure(error: unknown, signal?: AbortSignal): ProviderFailure {
  const e = (error && typeof error === "object" ? error : {}) as ErrorLike;
  const name = typeof e.name === "string" ? e.name : "";
  if (signal?.aborted || name === "APIUserAbortError" || name === "AbortError") {
    return { kind: "other", message: "Request was aborted", aborted: true };
  }
  const status = typeof e.status === "number" ? e.status : undefined;
  const headers = e.headers instanceof Headers ? e.headers : undefined;
  const inner = innerError(e.error);
  let message =
    typeof inner?.message === "string"
      ? inner.message
      : typeof e.message === "string"
        ? e.message
        : String(error);
  const cause = e.cause && typeof e.cause === "object" ? (e.cause as ErrorLike) : undefined;
  if (
    status === undefined &&
    cause &&
    typeof cause.message === "string" &&
    !message.includes(cause.message)
  ) {
    message = `${message}: ${cause.message}`;
  }
  // In-stream errors have no status; the vendor's type/code (e.g. overloaded_error,
  // server_error, rate_limit_exceeded) then carries the classification.
  const tags = [inner?.type, inner?.code].filter((t): t is string => typeof t === "string").join(" ");
  // An in-stream error that carries an HTTP status as its code (llama.cpp's `{"code": 400}`)
  // is classified like an HTTP error with that status and text.
  const statusCode =
    typeof inner?.code === "number" && inner.code >= 400 && inner.code < 600 ? inner.code : undefined;
  const failure: ProviderFailure = {
    kind: classifyError(status ?? statusCode, tags ? `${message} (${tags})` : message),
    message,
    aborted: false,
  };
  if (status !== undefined) failure.status = status;
  const retryAfterMs = parseRetryAfter(headers, message);
  if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
  return failure;
}
