import { describe, expect, test } from "bun:test";
import {
  anthropicThinking,
  DEMO_MODEL,
  defaultThinkingLevels,
  effectiveThinkingLevel,
  type Model,
  openaiReasoningEffort,
} from "../src/index.ts";

const reasoning: Model = { ...DEMO_MODEL, reasoning: true, thinkingLevels: ["off", "low", "high"] };

describe("thinking levels", () => {
  test("a non-reasoning model offers only off", () => {
    expect(defaultThinkingLevels(false)).toEqual(["off"]);
    expect(defaultThinkingLevels(true)).toEqual(["off", "minimal", "low", "medium", "high", "xhigh"]);
    expect(effectiveThinkingLevel(DEMO_MODEL, "high")).toBe("off");
  });
  test("an unsupported level falls to the nearest lower supported one", () => {
    expect(effectiveThinkingLevel(reasoning, "medium")).toBe("low");
    expect(effectiveThinkingLevel(reasoning, "xhigh")).toBe("high");
    expect(effectiveThinkingLevel(reasoning, "minimal")).toBe("off");
    expect(effectiveThinkingLevel(reasoning, "high")).toBe("high");
  });
  test("anthropic budgets shrink to fit max_tokens and vanish below 1024", () => {
    expect(anthropicThinking("high", 64_000).thinking).toEqual({ type: "enabled", budget_tokens: 20_480 });
    expect(anthropicThinking("high", 8_192).thinking?.budget_tokens).toBe(7_168);
    expect(anthropicThinking("low", 1_500).thinking).toBeUndefined();
    expect(anthropicThinking("off", 64_000).thinking).toBeUndefined();
  });
  test("openai effort mirrors the level and omits off", () => {
    expect(openaiReasoningEffort("off")).toBeUndefined();
    expect(openaiReasoningEffort("minimal")).toBe("minimal");
    expect(openaiReasoningEffort("xhigh")).toBe("xhigh");
  });
});
