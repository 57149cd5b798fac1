import { describe, expect, test } from "bun:test";
import type { StreamFunction, StreamOptions } from "@knightcode/ai";
import { registryProvider } from "../src/provider-configs.ts";

const model = { id: "m" };
const stream: StreamFunction = () => {
  throw new Error("not called");
};

describe("an extension's provider with its own streamSimple", () => {
  test("is accepted under an api of its own, and its function sees pi's reasoning option", () => {
    const seen: (StreamOptions & { reasoning?: string })[] = [];
    const checked = registryProvider("own", {
      baseUrl: "http://127.0.0.1:9",
      api: "own-api",
      models: [model],
      streamSimple: (_model, _context, options) => {
        seen.push(options ?? {});
        return stream(_model, _context, options);
      },
    });
    if (!("config" in checked)) throw new Error(checked.error);
    expect(checked.config.api).toBe("own-api");
    const wrapped = checked.config.stream!;
    const anyModel = {} as Parameters<StreamFunction>[0];
    expect(() => wrapped(anyModel, { messages: [] }, { thinkingLevel: "high", apiKey: "k" })).toThrow(
      "not called",
    );
    expect(() => wrapped(anyModel, { messages: [] }, { thinkingLevel: "off" })).toThrow("not called");
    expect(seen[0]).toMatchObject({ reasoning: "high", thinkingLevel: "high", apiKey: "k" });
    expect(seen[1]!.reasoning).toBeUndefined();
  });

  test.each([
    [
      "no api",
      { baseUrl: "http://127.0.0.1:9", models: [model], streamSimple: stream },
      'Provider "own" has a streamSimple but no api name for it',
    ],
    [
      "a built-in api",
      {
        baseUrl: "http://127.0.0.1:9",
        api: "anthropic-messages" as const,
        models: [model],
        streamSimple: stream,
      },
      'Provider "own" streamSimple needs an api of its own, not the built-in "anthropic-messages"',
    ],
    [
      "the demo api",
      { baseUrl: "http://127.0.0.1:9", api: "demo", models: [model], streamSimple: stream },
      'Provider "own" streamSimple needs an api of its own, not the built-in "demo"',
    ],
    [
      "a model on another api",
      {
        baseUrl: "http://127.0.0.1:9",
        api: "own-api",
        models: [{ id: "m", api: "openai-completions" as const }],
        streamSimple: stream,
      },
      'Provider "own" model "m" must use the api of its streamSimple',
    ],
    [
      "a streamSimple that is not a function",
      { baseUrl: "http://127.0.0.1:9", api: "own-api", models: [model], streamSimple: "x" as never },
      'Provider "own" streamSimple is not a function',
    ],
    [
      "a custom api without streamSimple",
      { baseUrl: "http://127.0.0.1:9", api: "own-api", models: [model] },
      'Provider "own" model "m" needs an api (openai-completions, openai-responses, anthropic-messages)',
    ],
  ])("is refused with %s", (_name, config, error) => {
    expect(registryProvider("own", config)).toEqual({ error });
  });
});
