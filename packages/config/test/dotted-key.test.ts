import { describe, expect, test } from "bun:test";
import { formatDottedKey, parseDottedKey } from "../src/index.ts";

describe("dotted keys", () => {
  test("splits plain and bracketed segments", () => {
    expect(parseDottedKey("retry.provider.maxRetryDelayMs")).toEqual([
      "retry",
      "provider",
      "maxRetryDelayMs",
    ]);
    expect(parseDottedKey('compaction.models["openai/gpt-4.1"].reserveTokens')).toEqual([
      "compaction",
      "models",
      "openai/gpt-4.1",
      "reserveTokens",
    ]);
  });

  test("format and parse round-trip, including dots and quotes in segments", () => {
    for (const segments of [["a"], ["a", "b/c"], ["x", "p/m.1", "k"], ["q", 'we"ird]', "z"]]) {
      expect(parseDottedKey(formatDottedKey(segments))).toEqual(segments);
    }
    expect(formatDottedKey(["compaction", "models", "openai/gpt-4.1"])).toBe(
      'compaction.models["openai/gpt-4.1"]',
    );
  });

  test.each(["", ".a", "a.", "a..b", "a[b]", 'a["x"', 'a[""]', 'a["x"]b', " a", "a. b"])(
    "malformed key %p is invalidParams",
    (key) => {
      let error: unknown;
      try {
        parseDottedKey(key);
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: "invalidParams", data: { reason: "malformedKey" } });
    },
  );

  test.each(["__proto__", "a.__proto__", "constructor.prototype", "x.prototype.y", 'a["__proto__"]'])(
    "prototype-pollution key %p is refused",
    (key) => {
      expect(() => parseDottedKey(key)).toThrow(expect.objectContaining({ code: "invalidParams" }));
    },
  );
});
