import { describe, expect, test } from "bun:test";
import { classifyError, describeFailure, type ErrorKind, parseRetryAfter } from "../src/index.ts";

describe("classifyError", () => {
  const cases: [number | undefined, string, ErrorKind][] = [
    [401, "invalid x-api-key", "auth"],
    [403, "forbidden", "auth"],
    [429, "Rate limit reached", "rateLimit"],
    [400, "prompt is too long: 208310 tokens > 200000 maximum", "contextOverflow"],
    [400, "This model's maximum context length is 128000 tokens.", "contextOverflow"],
    [400, "Your input exceeds the context window of this model.", "contextOverflow"],
    [413, "Request Entity Too Large", "contextOverflow"],
    [500, "Internal server error", "provider"],
    [529, "Overloaded", "provider"],
    [400, "messages.0.content: Field required", "other"],
    [400, "the request exceeds the available context size, try increasing it", "contextOverflow"],
    [undefined, "boom (exceed_context_size_error)", "contextOverflow"],
    [undefined, "ECONNRESET: socket closed", "network"],
    [undefined, "fetch failed", "network"],
    [undefined, "Incorrect API key provided", "auth"],
    [undefined, "rate_limit_exceeded: slow down", "rateLimit"],
    [undefined, "context_length_exceeded: too big", "contextOverflow"],
    [undefined, "overloaded_error: Overloaded", "provider"],
    [undefined, "something odd", "other"],
  ];
  for (const [status, text, kind] of cases) {
    test(`${status ?? "no status"} "${text}" -> ${kind}`, () => {
      expect(classifyError(status, text)).toBe(kind);
    });
  }
});

describe("parseRetryAfter", () => {
  test("reads retry-after-ms before retry-after", () => {
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
  });
  test("reads retry-after seconds", () => {
    expect(parseRetryAfter(new Headers({ "retry-after": "3" }))).toBe(3000);
  });
  test("reads retry-after as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), "", now)).toBe(
      5000,
    );
  });
  test("falls back to a 'try again in' hint in the text", () => {
    expect(parseRetryAfter(undefined, "Please try again in 2s.")).toBe(2000);
    expect(parseRetryAfter(undefined, "Please try again in 120ms")).toBe(120);
  });
  test("is undefined when nothing says when", () => {
    expect(parseRetryAfter(new Headers(), "nope")).toBeUndefined();
  });
});

describe("describeFailure", () => {
  test("an aborted signal wins over the error's text", () => {
    const failure = describeFailure(new Error("ECONNRESET"), AbortSignal.abort());
    expect(failure.aborted).toBe(true);
  });
  test("prefers the vendor body message and reads status and headers", () => {
    const error = Object.assign(new Error("429 {...}"), {
      status: 429,
      headers: new Headers({ "retry-after": "4" }),
      error: { error: { message: "Rate limit reached" } },
    });
    expect(describeFailure(error)).toEqual({
      kind: "rateLimit",
      message: "Rate limit reached",
      status: 429,
      retryAfterMs: 4000,
      aborted: false,
    });
  });
});
