import { describe, expect, test } from "bun:test";
import {
  executeRecoveryPlan,
  isContextOverflow,
  isEarlyLengthStop,
  omissionEdit,
  type RecoveryExecutor,
  selectRecovery,
} from "../src/recovery.ts";
import type { CompactionOutcome } from "../src/run-compaction.ts";
import { DEFAULT_COMPACTION_SETTINGS } from "../src/settings.ts";
import { assistant, usage } from "./helpers.ts";

const overflow = assistant("", {
  stopReason: "error",
  errorMessage: "prompt is too long: 208310 tokens > 200000",
});
const base = {
  attemptEntryIds: ["a1"],
  settings: DEFAULT_COMPACTION_SETTINGS,
  contextWindow: 200_000,
  maxOutputTokens: 8192,
  isRecoveryRetry: false,
};

describe("recognizing a failed attempt", () => {
  test("context overflow: classified kind, provider wording, or input beyond the window", () => {
    expect(isContextOverflow(assistant("", { stopReason: "error", errorKind: "contextOverflow" }))).toBe(
      true,
    );
    expect(isContextOverflow(overflow)).toBe(true);
    expect(
      isContextOverflow(
        assistant("", { stopReason: "error", errorMessage: "This model's maximum context length is 8192" }),
      ),
    ).toBe(true);
    expect(isContextOverflow(assistant("", { stopReason: "error", usage: usage(250_000) }), 200_000)).toBe(
      true,
    );
    expect(
      isContextOverflow(assistant("", { stopReason: "error", errorMessage: "rate limited" }), 200_000),
    ).toBe(false);
    expect(isContextOverflow(assistant("fine"))).toBe(false);
  });

  test("early length: fewer output tokens than allowed, no tool calls", () => {
    const early = assistant("partial", { stopReason: "length", usage: usage(199_000, 12) });
    expect(isEarlyLengthStop(early, { maxOutputTokens: 8192 })).toBe(true);
    const full = assistant("long", { stopReason: "length", usage: usage(1000, 8192) });
    expect(isEarlyLengthStop(full, { maxOutputTokens: 8192 })).toBe(false);
    expect(isEarlyLengthStop(full, { maxOutputTokens: 8192, contextWindow: 9192 })).toBe(true);
    const withCall = assistant("", {
      stopReason: "length",
      usage: usage(1000, 3),
      content: [{ type: "toolCall", id: "c", name: "read", arguments: {} }],
    });
    expect(isEarlyLengthStop(withCall, { maxOutputTokens: 8192 })).toBe(false);
  });
});

describe("selectRecovery", () => {
  test("an overflow selects the spec's ordered plan", () => {
    const plan = selectRecovery({ ...base, finalMessage: overflow });
    expect(plan?.kind).toBe("overflow");
    expect(plan?.steps).toEqual([
      { type: "persistFinalResponse" },
      { type: "turnEnd" },
      { type: "agentEnd" },
      { type: "appendOmissions", entryIds: ["a1"] },
      { type: "compact", reason: "overflow", willRetry: true },
      { type: "retry" },
    ]);
  });

  test("an early length stop selects recovery; a length stop with tool calls does not", () => {
    const early = assistant("p", { stopReason: "length", usage: usage(10, 1) });
    expect(selectRecovery({ ...base, finalMessage: early })?.kind).toBe("length");
    const withCall = assistant("", {
      stopReason: "length",
      usage: usage(10, 1),
      content: [{ type: "toolCall", id: "c", name: "read", arguments: {} }],
    });
    expect(selectRecovery({ ...base, finalMessage: withCall })).toBeUndefined();
  });

  test("one attempt only: never after a recovery retry, never when compaction is disabled", () => {
    expect(selectRecovery({ ...base, finalMessage: overflow, isRecoveryRetry: true })).toBeUndefined();
    expect(
      selectRecovery({
        ...base,
        finalMessage: overflow,
        settings: { ...DEFAULT_COMPACTION_SETTINGS, enabled: false },
      }),
    ).toBeUndefined();
    expect(selectRecovery({ ...base, finalMessage: assistant("ok") })).toBeUndefined();
  });

  test("the omission edit hides exactly the attempt", () => {
    expect(omissionEdit(["a1", "a2"], "length")).toEqual({
      type: "context_edit",
      omit: ["a1", "a2"],
      reason: "length-recovery",
    });
  });
});

describe("executeRecoveryPlan", () => {
  function executor(log: string[], outcome: CompactionOutcome): RecoveryExecutor {
    return {
      persistFinalResponse: () => void log.push("persist"),
      turnEnd: async () => void log.push("turn_end"),
      agentEnd: () => void log.push("agent_end"),
      appendOmissions: (ids, kind) => void log.push(`omit:${ids.join(",")}:${kind}`),
      compact: async (reason, willRetry) => {
        log.push(`compact:${reason}:${willRetry}`);
        return outcome;
      },
      retry: () => void log.push("retry"),
    };
  }

  test("runs every step in order and retries after a successful compaction", async () => {
    const plan = selectRecovery({ ...base, finalMessage: overflow });
    if (!plan) throw new Error("no plan");
    const log: string[] = [];
    const entry = {
      type: "compaction" as const,
      id: "c",
      parentId: null,
      timestamp: "",
      summary: "s",
      firstKeptEntryId: "x",
      tokensBefore: 1,
    };
    const result = await executeRecoveryPlan(
      plan,
      executor(log, { status: "compacted", entry, fromExtension: false }),
    );
    expect(log).toEqual([
      "persist",
      "turn_end",
      "agent_end",
      "omit:a1:overflow",
      "compact:overflow:true",
      "retry",
    ]);
    expect(result.retried).toBe(true);
  });

  test("a failed or cancelled compaction keeps the omissions and schedules no retry", async () => {
    const plan = selectRecovery({ ...base, finalMessage: overflow });
    if (!plan) throw new Error("no plan");
    for (const outcome of [
      { status: "failed", errorMessage: "x", aborted: false, fromExtension: false } as const,
      { status: "cancelled" } as const,
    ]) {
      const log: string[] = [];
      const result = await executeRecoveryPlan(plan, executor(log, outcome));
      expect(log).toEqual(["persist", "turn_end", "agent_end", "omit:a1:overflow", "compact:overflow:true"]);
      expect(result).toEqual({
        executed: ["persistFinalResponse", "turnEnd", "agentEnd", "appendOmissions", "compact"],
        compaction: outcome,
        retried: false,
      });
    }
  });
});
