import { describe, expect, test } from "bun:test";
import {
  type AssistantMessageEvent,
  type Context,
  DEMO_MODEL,
  type StreamFunction,
  streamDemo,
} from "../../src/index.ts";
import { lazyProvider } from "../../src/providers/lazy-provider.ts";

const context: Context = { messages: [{ role: "user", content: "hello", timestamp: 0 }] };

async function events(stream: ReturnType<StreamFunction>): Promise<AssistantMessageEvent["type"][]> {
  const types: AssistantMessageEvent["type"][] = [];
  for await (const event of stream) types.push(event.type);
  return types;
}

describe("a provider whose module loads with its first request", () => {
  test("the first request forwards the loaded provider's events and result; later ones call it directly", async () => {
    let loads = 0;
    const provider = lazyProvider(async () => {
      loads++;
      return streamDemo;
    });
    const direct = await events(streamDemo(DEMO_MODEL, context));
    const first = provider.stream(DEMO_MODEL, context);
    expect(await events(first)).toEqual(direct);
    expect((await first.result()).stopReason).toBe("stop");
    expect(await events(provider.stream(DEMO_MODEL, context))).toEqual(direct);
    await provider.preload();
    expect(loads).toBe(1);
  });

  test("a failed load ends that request with an error event, and the next request loads again", async () => {
    let loads = 0;
    const provider = lazyProvider(async () => {
      loads++;
      if (loads === 1) throw new Error("Cannot find module './providers/openai-responses.ts'");
      return streamDemo;
    });
    const failed = await provider.stream(DEMO_MODEL, context).result();
    expect(failed.stopReason).toBe("error");
    expect(failed.errorMessage).toContain("Cannot find module");
    expect((await provider.stream(DEMO_MODEL, context).result()).stopReason).toBe("stop");
    expect(loads).toBe(2);
  });

  test("preload never rejects, and a request after a failed preload loads again", async () => {
    let loads = 0;
    const provider = lazyProvider(async () => {
      loads++;
      if (loads === 1) throw new Error("offline");
      return streamDemo;
    });
    expect(await provider.preload()).toBeUndefined();
    expect((await provider.stream(DEMO_MODEL, context).result()).stopReason).toBe("stop");
    expect(loads).toBe(2);
  });
});
