import { describe, expect, test } from "bun:test";
import { DEFAULT_COMPACTION_SETTINGS, shouldCompact } from "../src/settings.ts";

describe("shouldCompact", () => {
  test("defaults are enabled, reserve 16384, keep 20000", () => {
    expect(DEFAULT_COMPACTION_SETTINGS).toEqual({
      enabled: true,
      reserveTokens: 16384,
      keepRecentTokens: 20000,
    });
  });

  test("triggers strictly above contextWindow - reserveTokens", () => {
    const settings = { enabled: true, reserveTokens: 10_000, keepRecentTokens: 20_000 };
    expect(shouldCompact(90_001, 100_000, settings)).toBe(true);
    expect(shouldCompact(90_000, 100_000, settings)).toBe(false);
  });

  test("never triggers when disabled", () => {
    expect(shouldCompact(1_000_000, 100_000, { ...DEFAULT_COMPACTION_SETTINGS, enabled: false })).toBe(false);
  });
});
