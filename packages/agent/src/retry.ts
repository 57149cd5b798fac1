/**
 * Retry policy for model requests: which failures are transient and how long to wait.
 * Pure functions plus a default abortable sleep, so tests inject their own clock.
 */
import type { AssistantMessage } from "@knightcode/ai";
import type { RetryOptions } from "./types.ts";

/** Defaults matching the `retry.*` settings. */
export const DEFAULT_RETRY: RetryOptions = {
  enabled: true,
  maxRetries: 3,
  baseDelayMs: 2000,
  maxRetryDelayMs: 60_000,
};

/** Merges settings over the defaults. */
export function resolveRetryOptions(partial: Partial<RetryOptions> | undefined): RetryOptions {
  return { ...DEFAULT_RETRY, ...partial };
}

// A "provider" failure with a 4xx status other than 408/409/429 is a request the server
// will refuse again; everything else classified provider (5xx, overloaded) is transient.
const CLIENT_ERROR = /\b4(?!08|09|29)\d\d\b/;

/** True when the failed message is worth another attempt. */
export function isTransientFailure(message: AssistantMessage): boolean {
  if (message.stopReason !== "error") return false;
  switch (message.errorKind) {
    case "network":
    case "rateLimit":
      return true;
    case "provider":
      return !CLIENT_ERROR.test(message.errorMessage ?? "");
    default:
      return false;
  }
}

// A host name that does not resolve (no such name, or no resolver reachable: offline)
// seldom starts resolving within seconds; one more try covers a resolver's hiccup.
const UNRESOLVED_HOST = /\b(ENOTFOUND|EAI_AGAIN)\b/;
const UNRESOLVED_HOST_RETRIES = 1;

/** How many retries a failure gets at most: fewer for a host that cannot be resolved. */
export function retryLimit(message: AssistantMessage, options: RetryOptions): number {
  return UNRESOLVED_HOST.test(message.errorMessage ?? "")
    ? Math.min(options.maxRetries, UNRESOLVED_HOST_RETRIES)
    : options.maxRetries;
}

/**
 * Delay before retry number `attempt` (1-based): the server's retry-after when given,
 * else exponential backoff capped by `maxRetryDelayMs`. `undefined` means "do not retry":
 * the server asked for longer than we are willing to wait.
 */
export function retryDelayMs(
  attempt: number,
  options: RetryOptions,
  retryAfterMs?: number,
): number | undefined {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) {
    return retryAfterMs > options.maxRetryDelayMs ? undefined : retryAfterMs;
  }
  const backoff = options.baseDelayMs * 2 ** (attempt - 1);
  return Math.min(backoff, options.maxRetryDelayMs);
}

/** Waits `ms`, rejecting with the signal's reason when it aborts first. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
