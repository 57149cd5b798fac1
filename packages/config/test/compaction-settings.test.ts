import { describe, expect, test } from "bun:test";
import { type ConfigWarning, deepMerge, resolveCompactionSettings } from "../src/index.ts";

describe("compaction settings", () => {
  test("defaults are enabled, 16384 reserve, 20000 keep-recent", () => {
    expect(resolveCompactionSettings({})).toEqual({
      enabled: true,
      reserveTokens: 16384,
      keepRecentTokens: 20000,
    });
  });

  test("a model entry beats plain compaction keys, which beat defaults", () => {
    const settings = {
      compaction: {
        reserveTokens: 1000,
        keepRecentTokens: 2000,
        models: { "anthropic/claude-x": { reserveTokens: 50 } },
      },
    };
    expect(resolveCompactionSettings(settings, "anthropic/claude-x")).toEqual({
      enabled: true,
      reserveTokens: 50,
      keepRecentTokens: 2000,
    });
    expect(resolveCompactionSettings(settings, "anthropic/other").reserveTokens).toBe(1000);
  });

  test("model keys are exact and case-sensitive and may contain slashes and dots", () => {
    const settings = { compaction: { models: { "openrouter/meta/llama-3.1": { enabled: false } } } };
    expect(resolveCompactionSettings(settings, "openrouter/meta/llama-3.1").enabled).toBe(false);
    expect(resolveCompactionSettings(settings, "OpenRouter/meta/llama-3.1").enabled).toBe(true);
  });

  test("lookup runs after the merge: a global model entry beats a project's plain value", () => {
    const global = { compaction: { models: { "p/m": { keepRecentTokens: 111 } } } };
    const project = { compaction: { keepRecentTokens: 999 } };
    const merged = deepMerge(global, project);
    expect(resolveCompactionSettings(merged, "p/m").keepRecentTokens).toBe(111);
    expect(resolveCompactionSettings(merged, "p/other").keepRecentTokens).toBe(999);
  });

  test("ill-typed values fall through and are reported", () => {
    const warnings: ConfigWarning[] = [];
    const settings = { compaction: { reserveTokens: -5, enabled: "yes", models: { "p/m": "bad" } } };
    expect(resolveCompactionSettings(settings, "p/m", warnings)).toEqual({
      enabled: true,
      reserveTokens: 16384,
      keepRecentTokens: 20000,
    });
    expect(warnings.map((w) => w.message)).toEqual([
      "Ignoring compaction.models.p/m: expected an object",
      "Ignoring compaction.enabled: expected a boolean",
      "Ignoring compaction.reserveTokens: expected a non-negative integer",
    ]);
  });
});
