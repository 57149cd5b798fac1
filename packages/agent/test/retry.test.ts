import { describe, expect, test } from "bun:test";
import type { AssistantMessage } from "@knightcode/ai";
import { emptyUsage } from "@knightcode/ai";
import { abortableSleep, DEFAULT_RETRY, isTransientFailure, retryDelayMs, retryLimit } from "../src/index.ts";

function failed(errorKind: AssistantMessage["errorKind"], errorMessage = "x"): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: "openai-completions",
    provider: "p",
    model: "m",
    usage: emptyUsage(),
    stopReason: "error",
    errorKind,
    errorMessage,
    timestamp: 0,
  };
}

describe("retry policy", () => {
  test("network, rate limits and 5xx provider failures are transient; auth, overflow and 4xx are not", () => {
    expect(isTransientFailure(failed("network"))).toBe(true);
    expect(isTransientFailure(failed("rateLimit"))).toBe(true);
    expect(isTransientFailure(failed("provider", "500 Internal Server Error"))).toBe(true);
    expect(isTransientFailure(failed("provider", "529 overloaded"))).toBe(true);
    expect(isTransientFailure(failed("provider", "400 invalid request"))).toBe(false);
    expect(isTransientFailure(failed("auth"))).toBe(false);
    expect(isTransientFailure(failed("contextOverflow"))).toBe(false);
    expect(isTransientFailure(failed("other"))).toBe(false);
    expect(isTransientFailure({ ...failed("network"), stopReason: "aborted" })).toBe(false);
  });

  test("a host that cannot be resolved gets one retry, other failures the configured number", () => {
    const notFound = failed("network", "Connection error.: getaddrinfo ENOTFOUND api.nowhere.invalid");
    const offline = failed("network", "Connection error.: getaddrinfo EAI_AGAIN api.openai.com");
    expect(retryLimit(notFound, DEFAULT_RETRY)).toBe(1);
    expect(retryLimit(offline, DEFAULT_RETRY)).toBe(1);
    expect(retryLimit(notFound, { ...DEFAULT_RETRY, maxRetries: 0 })).toBe(0);
    expect(retryLimit(failed("network", "ECONNRESET"), DEFAULT_RETRY)).toBe(3);
  });

  test("backoff doubles from the base delay and is capped by maxRetryDelayMs", () => {
    const options = { ...DEFAULT_RETRY, baseDelayMs: 1000, maxRetryDelayMs: 3000 };
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, options))).toEqual([1000, 2000, 3000, 3000]);
  });

  test("retry-after wins over backoff; one longer than maxRetryDelayMs means no retry", () => {
    const options = { ...DEFAULT_RETRY, baseDelayMs: 1000, maxRetryDelayMs: 3000 };
    expect(retryDelayMs(1, options, 2500)).toBe(2500);
    expect(retryDelayMs(3, options, 0)).toBe(0);
    expect(retryDelayMs(1, options, 3001)).toBeUndefined();
  });

  test("abortableSleep rejects with the abort reason", async () => {
    const controller = new AbortController();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(sleeping).rejects.toThrow("stop");
    await expect(abortableSleep(1, AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
  });
});
