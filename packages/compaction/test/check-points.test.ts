import { describe, expect, test } from "bun:test";
import { checksThresholdAt, checkThreshold } from "../src/check-points.ts";
import { DEFAULT_COMPACTION_SETTINGS } from "../src/settings.ts";
import { assistant, TestSession, usage, user } from "./helpers.ts";

describe("threshold check points", () => {
  test("after a tool batch, unless the batch ends the run and nothing queued needs a response", () => {
    expect(
      checksThresholdAt({ kind: "afterToolBatch", batchEndsRun: false, queuedNeedsResponse: false }),
    ).toBe(true);
    expect(checksThresholdAt({ kind: "afterToolBatch", batchEndsRun: true, queuedNeedsResponse: true })).toBe(
      true,
    );
    expect(
      checksThresholdAt({ kind: "afterToolBatch", batchEndsRun: true, queuedNeedsResponse: false }),
    ).toBe(false);
    expect(checksThresholdAt({ kind: "beforePrompt" })).toBe(true);
  });

  test("checks the projected context against contextWindow - reserveTokens", () => {
    const s = new TestSession();
    s.msg(user(40));
    s.msg(assistant(4, { usage: usage(90_000) }));
    s.msg(user(400));
    const settings = { ...DEFAULT_COMPACTION_SETTINGS, reserveTokens: 10_000 };
    expect(checkThreshold({ kind: "beforePrompt" }, s.path(), 100_000, settings)).toEqual({
      compact: true,
      contextTokens: 90_100,
    });
    expect(checkThreshold({ kind: "beforePrompt" }, s.path(), 100_100, settings).compact).toBe(false);
    expect(
      checkThreshold(
        { kind: "afterToolBatch", batchEndsRun: true, queuedNeedsResponse: false },
        s.path(),
        1,
        settings,
      ),
    ).toEqual({ compact: false, contextTokens: undefined });
    expect(
      checkThreshold({ kind: "beforePrompt" }, s.path(), 1, { ...settings, enabled: false }).compact,
    ).toBe(false);
  });
});
