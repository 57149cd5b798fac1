import { describe, expect, test } from "bun:test";
import { DEMO_MODEL, type Model } from "@knightcode/ai";
import { staticModelSource, warmingModelSource } from "../src/index.ts";

const other: Model = { ...DEMO_MODEL, provider: "mock", id: "other", api: "openai-completions" };

describe("warmingModelSource", () => {
  test("answers exactly what the wrapped source answers", async () => {
    const inner = staticModelSource([other, DEMO_MODEL], { mock: "key-1" });
    const warmed = warmingModelSource(inner);
    expect(await warmed.list()).toEqual(await inner.list());
    expect(await warmed.find({ provider: "mock", id: "other" })).toBe(other);
    expect(await warmed.find({ provider: "mock", id: "missing" })).toBeUndefined();
    expect(await warmed.defaultModel()).toBe(other);
    expect(await warmed.getApiKey(other)).toBe("key-1");
    expect(await warmed.available(DEMO_MODEL)).toBe(true);
  });

  test("a model whose provider cannot load still resolves: warming never fails a lookup", async () => {
    const exotic: Model = { ...DEMO_MODEL, provider: "x", id: "y", api: "no-such-api" as Model["api"] };
    const warmed = warmingModelSource(staticModelSource([exotic]));
    expect(await warmed.find({ provider: "x", id: "y" })).toBe(exotic);
  });
});
