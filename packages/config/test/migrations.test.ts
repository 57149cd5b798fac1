import { describe, expect, test } from "bun:test";
import { LEGACY_KEYS, migrateSettings } from "../src/index.ts";

describe("legacy key migrations", () => {
  test("queueMode becomes steeringMode", () => {
    const s: Record<string, unknown> = { queueMode: "all" };
    expect(migrateSettings(s)).toBe(true);
    expect(s).toEqual({ steeringMode: "all" });
  });

  test("retry.maxDelayMs becomes retry.provider.maxRetryDelayMs", () => {
    const s: Record<string, unknown> = { retry: { maxDelayMs: 5000, provider: { maxRetries: 2 } } };
    migrateSettings(s);
    expect(s).toEqual({ retry: { provider: { maxRetries: 2, maxRetryDelayMs: 5000 } } });
  });

  test("compaction.modelOverrides becomes compaction.models", () => {
    const s: Record<string, unknown> = { compaction: { modelOverrides: { "a/b": { reserveTokens: 1 } } } };
    migrateSettings(s);
    expect(s).toEqual({ compaction: { models: { "a/b": { reserveTokens: 1 } } } });
  });

  test("the old skills object becomes a path array and enableSkillCommands", () => {
    const s: Record<string, unknown> = {
      skills: { enableSkillCommands: false, customDirectories: ["~/sk"] },
    };
    migrateSettings(s);
    expect(s).toEqual({ skills: ["~/sk"], enableSkillCommands: false });
    const empty: Record<string, unknown> = { skills: { customDirectories: [] } };
    migrateSettings(empty);
    expect(empty).toEqual({});
  });

  test("a present canonical key wins and the legacy alias is dropped", () => {
    const s: Record<string, unknown> = {
      queueMode: "all",
      steeringMode: "one-at-a-time",
      retry: { maxDelayMs: 1, provider: { maxRetryDelayMs: 2 } },
      compaction: { modelOverrides: { x: {} }, models: { y: {} } },
    };
    migrateSettings(s);
    expect(s).toEqual({
      steeringMode: "one-at-a-time",
      retry: { provider: { maxRetryDelayMs: 2 } },
      compaction: { models: { y: {} } },
    });
  });

  test("canonical settings are untouched", () => {
    const s = { steeringMode: "all", retry: { provider: { maxRetryDelayMs: 1 } }, skills: ["a"] };
    expect(migrateSettings(s)).toBe(false);
    expect(LEGACY_KEYS.map((k) => k.legacy)).toContain("queueMode");
  });
});
