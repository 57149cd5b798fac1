import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { collectOutput, type MockModelServer, startMockModelServer } from "@knightcode/testkit";
import {
  type AssistantMessageEvent,
  type Model,
  preloadProvider,
  type StreamOptions,
  streamModel,
} from "../../src/index.ts";
import { clientFactory, LruCache, once, sdkClients, sdkModules } from "../../src/providers/sdk.ts";

let mock: MockModelServer;
beforeAll(async () => {
  mock = await startMockModelServer();
});
afterAll(async () => {
  await mock.close();
});

const APIS = ["openai-completions", "openai-responses", "anthropic-messages"] as const;
type SdkApi = (typeof APIS)[number];

function modelFor(api: SdkApi, baseUrl = mock.baseUrl): Model {
  return {
    id: "mock-model",
    name: "Mock",
    api,
    provider: "mock",
    baseUrl,
    reasoning: false,
    input: ["text"],
    cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 100_000,
    maxTokens: 1_000,
    thinkingLevels: ["off"],
  };
}

async function run(model: Model, options: StreamOptions = { apiKey: "key-a" }) {
  const events: AssistantMessageEvent[] = [];
  for await (const event of streamModel(
    model,
    { messages: [{ role: "user", content: "hi", timestamp: 0 }] },
    options,
  )) {
    events.push(event);
  }
  return events;
}

describe("the vendor SDKs load on first use", () => {
  test("importing @knightcode/ai loads neither SDK nor provider module; the first stream of each API loads only its own", async () => {
    mock.reset();
    mock.enqueue(
      { steps: [{ type: "text", text: "from completions", deltas: 2 }] },
      { steps: [{ type: "text", text: "from responses", deltas: 2 }] },
      { steps: [{ type: "text", text: "from messages", deltas: 2 }] },
    );
    // A fresh process: in this one, other test files have loaded the SDKs already.
    const child = Bun.spawn(
      [process.execPath, join(import.meta.dir, "..", "fixtures", "sdk-load-probe.ts")],
      {
        env: { ...process.env, MOCK_BASE_URL: mock.baseUrl },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const { stdout, stderr, code } = await collectOutput(child);
    if (code !== 0) throw new Error(`the probe exited with ${code}: ${stderr}`);
    const steps = JSON.parse(stdout) as {
      step: string;
      loaded: object;
      text?: string;
      stopReason?: string;
    }[];
    expect(steps.map(({ step, loaded }) => ({ step, loaded }))).toEqual([
      { step: "import", loaded: { openai: false, anthropic: false, providers: [] } },
      { step: "demo", loaded: { openai: false, anthropic: false, providers: [] } },
      {
        step: "openai-completions",
        loaded: { openai: true, anthropic: false, providers: ["openai-completions"] },
      },
      {
        step: "openai-responses",
        loaded: { openai: true, anthropic: false, providers: ["openai-completions", "openai-responses"] },
      },
      {
        step: "anthropic-messages",
        loaded: {
          openai: true,
          anthropic: true,
          providers: ["openai-completions", "openai-responses", "anthropic-messages"],
        },
      },
    ]);
    expect(steps[1]?.text).toContain("offline demo");
    expect(steps.slice(2).map(({ text, stopReason }) => ({ text, stopReason }))).toEqual([
      { text: "from completions", stopReason: "stop" },
      { text: "from responses", stopReason: "stop" },
      { text: "from messages", stopReason: "stop" },
    ]);
    expect(mock.requests.map((r) => r.format)).toEqual([
      "chat-completions",
      "responses",
      "anthropic-messages",
    ]);
  });

  test("a loader runs once for concurrent callers, and a failed load is tried again", async () => {
    let loads = 0;
    const load = once(async () => ++loads);
    expect(await Promise.all([load(), load(), load()])).toEqual([1, 1, 1]);
    expect(await load()).toBe(1);
    expect(loads).toBe(1);

    let attempts = 0;
    const flaky = once(async () => {
      attempts++;
      if (attempts === 1) throw new Error("Cannot find package 'openai'");
      return "loaded";
    });
    await expect(flaky()).rejects.toThrow("Cannot find package 'openai'");
    expect(await flaky()).toBe("loaded");
    expect(await flaky()).toBe("loaded");
    expect(attempts).toBe(2);
  });

  for (const api of APIS) {
    test(`${api}: an SDK that fails to load ends the stream with an error event`, async () => {
      mock.reset();
      const vendor = api === "anthropic-messages" ? "anthropic" : "openai";
      const loaders: Record<typeof vendor, () => Promise<unknown>> = sdkModules;
      const real = loaders[vendor];
      loaders[vendor] = () => Promise.reject(new Error(`Cannot find package '${vendor}'`));
      try {
        const events = await run(modelFor(api));
        expect(events.map((e) => e.type)).toEqual(["start", "error"]);
        const last = events.at(-1);
        expect(last?.type === "error" ? last.error : undefined).toMatchObject({
          stopReason: "error",
          errorMessage: `Cannot find package '${vendor}'`,
        });
      } finally {
        loaders[vendor] = real;
      }
      expect(mock.requests).toHaveLength(0);
      // Once the SDK loads again, the same API works.
      mock.enqueue({ steps: [{ type: "text", text: "back", deltas: 1 }] });
      expect((await run(modelFor(api))).at(-1)).toMatchObject({ type: "done", reason: "stop" });
    });
  }
});

for (const api of APIS) {
  test(`${api}: an abort while the SDK is still loading ends the stream as aborted, with no request`, async () => {
    mock.reset();
    const vendor = api === "anthropic-messages" ? "anthropic" : "openai";
    const loaders: Record<typeof vendor, () => Promise<unknown>> = sdkModules;
    const real = loaders[vendor];
    const { promise: loading, resolve: finishLoading } = Promise.withResolvers<void>();
    let started!: () => void;
    const loadStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    loaders[vendor] = async () => {
      started();
      await loading;
      return real();
    };
    const controller = new AbortController();
    try {
      const events = run(modelFor(api), { apiKey: "key-a", signal: controller.signal });
      await loadStarted;
      controller.abort();
      finishLoading();
      const last = (await events).at(-1);
      expect(last?.type === "error" ? last.error.stopReason : last?.type).toBe("aborted");
    } finally {
      loaders[vendor] = real;
    }
    expect(mock.requests).toHaveLength(0);
  });
}

test("preloadProvider loads the SDK an API needs, and never rejects", async () => {
  const loaders: Record<"openai" | "anthropic", () => Promise<unknown>> = sdkModules;
  const real = { ...loaders };
  const calls: string[] = [];
  loaders.openai = async () => calls.push("openai");
  loaders.anthropic = () => {
    calls.push("anthropic");
    return Promise.reject(new Error("Cannot find package '@anthropic-ai/sdk'"));
  };
  try {
    await preloadProvider("openai-responses");
    await preloadProvider("openai-completions");
    await preloadProvider("demo");
    await preloadProvider("some-extension-api");
    expect(await preloadProvider("anthropic-messages")).toBeUndefined();
    expect(calls).toEqual(["openai", "openai", "anthropic"]);
  } finally {
    Object.assign(loaders, real);
  }
});

describe("SDK clients are reused per API, base URL, key and headers", () => {
  const built: string[] = [];
  const realOpenAI = clientFactory.openai;
  const realAnthropic = clientFactory.anthropic;
  beforeAll(() => {
    clientFactory.openai = (sdk, settings) => {
      built.push(`openai ${settings.apiKey}`);
      return realOpenAI(sdk, settings);
    };
    clientFactory.anthropic = (sdk, settings) => {
      built.push(`anthropic ${settings.apiKey}`);
      return realAnthropic(sdk, settings);
    };
  });
  afterAll(() => {
    clientFactory.openai = realOpenAI;
    clientFactory.anthropic = realAnthropic;
  });
  afterEach(() => {
    built.length = 0;
    sdkClients.clear();
  });

  for (const api of APIS) {
    const vendor = api === "anthropic-messages" ? "anthropic" : "openai";
    test(`${api}: repeated requests share one client; a new key, URL or header makes another`, async () => {
      mock.reset();
      mock.setDefault({ steps: [{ type: "text", text: "ok", deltas: 1 }] });
      sdkClients.clear();
      const done = { type: "done", reason: "stop" };
      expect((await run(modelFor(api), { apiKey: "key-a" })).at(-1)).toMatchObject(done);
      expect((await run(modelFor(api), { apiKey: "key-a" })).at(-1)).toMatchObject(done);
      expect(built).toEqual([`${vendor} key-a`]);

      expect((await run(modelFor(api), { apiKey: "key-b" })).at(-1)).toMatchObject(done);
      expect(built).toEqual([`${vendor} key-a`, `${vendor} key-b`]);
      // Both SDKs send the key as a bearer token.
      expect(mock.requests.map((r) => r.headers.authorization)).toEqual([
        "Bearer key-a",
        "Bearer key-a",
        "Bearer key-b",
      ]);

      await run(modelFor(api, `${mock.url}/v1/`), { apiKey: "key-a" });
      await run(modelFor(api), { apiKey: "key-a", headers: { "x-extra": "1" } });
      expect(built).toHaveLength(4);
      expect(mock.requests.at(-1)?.headers["x-extra"]).toBe("1");
      // Back to the first settings: still cached.
      await run(modelFor(api), { apiKey: "key-a" });
      expect(built).toHaveLength(4);
      mock.setDefault(undefined);
    });
  }

  test("the two OpenAI APIs keep separate clients", async () => {
    mock.reset();
    mock.setDefault({ steps: [{ type: "text", text: "ok", deltas: 1 }] });
    await run(modelFor("openai-completions"));
    await run(modelFor("openai-responses"));
    await run(modelFor("openai-completions"));
    expect(built).toEqual(["openai key-a", "openai key-a"]);
    mock.setDefault(undefined);
  });

  test("the cache is bounded and drops the least recently used client", () => {
    const cache = new LruCache<string>(2);
    const made: string[] = [];
    const get = (key: string) =>
      cache.getOrCreate(key, () => {
        made.push(key);
        return key;
      });
    get("a");
    get("b");
    get("a"); // a is now the most recent
    get("c"); // evicts b
    expect(cache.size).toBe(2);
    get("a");
    get("b");
    expect(made).toEqual(["a", "b", "c", "b"]);
    expect(sdkClients.limit).toBe(16);
  });
});
