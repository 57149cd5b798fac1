import { describe, expect, test } from "bun:test";
import { deepMerge, mergeOrigins, scrubForbiddenKeys } from "../src/merge.ts";

describe("settings merge", () => {
  test("project merges over global; objects merge, arrays and scalars replace", () => {
    const global = { theme: "dark", retry: { enabled: true, maxRetries: 3 }, skills: ["a"] };
    const project = { retry: { maxRetries: 5 }, skills: ["b"] };
    expect(deepMerge(global, project)).toEqual({
      theme: "dark",
      retry: { enabled: true, maxRetries: 5 },
      skills: ["b"],
    });
    expect(global.retry.maxRetries).toBe(3);
  });

  test("origins name the scope of every merged leaf", () => {
    const global = { theme: "dark", retry: { enabled: true, provider: { maxRetryDelayMs: 1 } } };
    const project = { retry: { provider: { maxRetryDelayMs: 2 } }, compaction: { models: { "a/b.c": {} } } };
    const merged = deepMerge(global, project);
    expect(mergeOrigins(merged, project)).toEqual({
      theme: "global",
      "retry.enabled": "global",
      "retry.provider.maxRetryDelayMs": "project",
      'compaction.models["a/b.c"]': "project",
    });
    expect(mergeOrigins(global, null)).toEqual({
      theme: "global",
      "retry.enabled": "global",
      "retry.provider.maxRetryDelayMs": "global",
    });
  });

  test("a project scalar replacing a global object owns the key", () => {
    const merged = deepMerge({ a: { b: 1 } }, { a: "x" });
    expect(merged).toEqual({ a: "x" });
    expect(mergeOrigins(merged, { a: "x" })).toEqual({ a: "project" });
  });

  test("parsed __proto__ keys are scrubbed and never reach a prototype", () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": 1}, "a": {"constructor": {"x": 1}, "b": 2}}');
    expect(scrubForbiddenKeys(parsed)).toEqual(["__proto__", "a.constructor"]);
    const merged = deepMerge({}, parsed);
    expect(merged).toEqual({ a: { b: 2 } });
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("deepMerge skips forbidden keys even unscrubbed", () => {
    const evil = JSON.parse('{"__proto__": {"polluted": true}}');
    const merged = deepMerge({}, evil);
    expect((merged as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
