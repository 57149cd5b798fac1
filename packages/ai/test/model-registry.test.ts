import { describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { MOCK_PROVIDERS, mockModelsJson, tempAgentDir } from "@knightcode/testkit";
import { BUILT_IN_MODELS, DEMO_MODEL, defaultModel, ModelRegistry, ModelsConfigError } from "../src/index.ts";

describe("built-in catalog", () => {
  test("has Anthropic and OpenAI models with limits, prices and thinking levels", () => {
    for (const provider of ["anthropic", "openai"]) {
      const models = BUILT_IN_MODELS.filter((m) => m.provider === provider);
      expect(models.length).toBeGreaterThan(1);
      for (const m of models) {
        expect(m.contextWindow).toBeGreaterThan(m.maxTokens);
        expect(m.cost.input).toBeGreaterThan(0);
        expect(m.thinkingLevels[0]).toBe("off");
        if (!m.reasoning) expect(m.thinkingLevels).toEqual(["off"]);
      }
    }
    expect(BUILT_IN_MODELS).toContain(DEMO_MODEL);
  });
});

describe("ModelRegistry", () => {
  test("merges models.json providers pointing at the mock", async () => {
    await using dir = await tempAgentDir({ models: mockModelsJson({ baseUrl: "http://127.0.0.1:9/v1" }) });
    const registry = new ModelRegistry({ agentDir: dir.agentDir, env: {} });
    const model = await registry.find(MOCK_PROVIDERS.anthropic, "mock-model");
    expect(model).toMatchObject({
      api: "anthropic-messages",
      baseUrl: "http://127.0.0.1:9/v1",
      reasoning: true,
    });
    expect(model?.thinkingLevels).toContain("high");
    expect(await registry.getApiKey(model!)).toBe("test-key");
  });

  test("re-reads models.json on every list", async () => {
    await using dir = await tempAgentDir();
    const registry = new ModelRegistry({ agentDir: dir.agentDir, env: {} });
    expect((await registry.list()).some((m) => m.provider === "local")).toBe(false);
    await dir.write("models.json", {
      providers: {
        local: { baseUrl: "http://localhost:11434/v1", api: "openai-completions", models: [{ id: "qwen" }] },
      },
    });
    const local = (await registry.list()).find((m) => m.provider === "local");
    expect(local).toMatchObject({ id: "qwen", name: "qwen", reasoning: false, thinkingLevels: ["off"] });
  });

  test("entries override built-in models and the provider's base URL", async () => {
    await using dir = await tempAgentDir({
      models: {
        providers: {
          anthropic: { baseUrl: "http://proxy.test", models: [{ id: "claude-sonnet-4-5", maxTokens: 1000 }] },
        },
      },
    });
    const models = await new ModelRegistry({ agentDir: dir.agentDir, env: {} }).list();
    const sonnet = models.find((m) => m.provider === "anthropic" && m.id === "claude-sonnet-4-5");
    expect(sonnet).toMatchObject({
      maxTokens: 1000,
      baseUrl: "http://proxy.test",
      api: "anthropic-messages",
    });
    expect(sonnet?.cost.input).toBe(3);
    const opus = models.find((m) => m.provider === "anthropic" && m.id === "claude-opus-4-5");
    expect(opus?.baseUrl).toBe("http://proxy.test");
  });

  test("malformed JSON is a ModelsConfigError naming the file; the built-in models are still listed", async () => {
    await using dir = await tempAgentDir({ models: "{ nope" });
    const registry = new ModelRegistry({ agentDir: dir.agentDir, env: {} });
    expect((await registry.list()).length).toBe(BUILT_IN_MODELS.length);
    const problem = await registry.configProblem();
    expect(problem).toBeInstanceOf(ModelsConfigError);
    expect(problem?.message).toContain(dir.modelsJsonPath);
    expect(problem?.message).toContain("not valid JSON");
    await Bun.write(dir.modelsJsonPath, JSON.stringify({ providers: {} }));
    expect(await registry.configProblem()).toBeUndefined();
  });

  test("an invalid field is named in the error", async () => {
    await using dir = await tempAgentDir({
      models: { providers: { bad: { baseUrl: "http://x", api: "grpc", models: [{ id: "m" }] } } },
    });
    expect((await new ModelRegistry({ agentDir: dir.agentDir }).configProblem())?.message).toMatch(
      /providers\.bad\.api/,
    );
    await writeFile(
      dir.modelsJsonPath,
      JSON.stringify({ providers: { bad: { api: "openai-completions", models: [{}] } } }),
    );
    expect((await new ModelRegistry({ agentDir: dir.agentDir }).configProblem())?.message).toMatch(
      /models\[0\]\.id/,
    );
  });

  test("a custom provider needs a baseUrl", async () => {
    await using dir = await tempAgentDir({
      models: { providers: { nourl: { api: "openai-completions", models: [{ id: "m" }] } } },
    });
    expect((await new ModelRegistry({ agentDir: dir.agentDir }).configProblem())?.message).toMatch(/baseUrl/);
  });

  test("registerProvider adds models at runtime", async () => {
    await using dir = await tempAgentDir();
    const registry = new ModelRegistry({ agentDir: dir.agentDir, env: {} });
    registry.registerProvider({
      name: "ext",
      baseUrl: "http://e",
      api: "openai-responses",
      models: [{ id: "e1" }],
    });
    expect(await registry.find("ext", "e1")).toBeDefined();
    registry.unregisterProvider("ext");
    expect(await registry.find("ext", "e1")).toBeUndefined();
  });
});

describe("defaultModel", () => {
  test("is the offline demo when no credentials exist", async () => {
    await using dir = await tempAgentDir();
    const registry = new ModelRegistry({ agentDir: dir.agentDir, env: {} });
    expect(await defaultModel(registry)).toBe(DEMO_MODEL);
    expect((await registry.available()).map((m) => m.id)).toEqual(["demo"]);
  });

  test("is a real model once an environment key exists", async () => {
    await using dir = await tempAgentDir();
    const registry = new ModelRegistry({ agentDir: dir.agentDir, env: { OPENAI_API_KEY: "k" } });
    const model = await defaultModel(registry);
    expect(model.provider).toBe("openai");
    expect(model.api).not.toBe("demo");
  });

  test("prefers the requested provider/model", async () => {
    await using dir = await tempAgentDir({ models: mockModelsJson({ baseUrl: "http://127.0.0.1:9/v1" }) });
    const registry = new ModelRegistry({ agentDir: dir.agentDir, env: { ANTHROPIC_API_KEY: "k" } });
    const chosen = await defaultModel(registry, registry.credentials, { provider: MOCK_PROVIDERS.responses });
    expect(chosen).toMatchObject({ provider: MOCK_PROVIDERS.responses, id: "mock-model" });
  });

  test("an environment key never overrides a server models.json describes", async () => {
    await using dir = await tempAgentDir({
      models: {
        providers: {
          local: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", models: [{ id: "qwen" }] },
        },
      },
    });
    const registry = new ModelRegistry({ agentDir: dir.agentDir, env: { OPENAI_API_KEY: "k" } });
    expect(await defaultModel(registry)).toMatchObject({ provider: "local", id: "qwen" });
  });

  test("a model chosen in settings stays the default without credentials, whatever keys the environment has", async () => {
    await using dir = await tempAgentDir();
    const registry = new ModelRegistry({ agentDir: dir.agentDir, env: { OPENAI_API_KEY: "k" } });
    const chosen = await defaultModel(registry, registry.credentials, {
      provider: "anthropic",
      modelId: "claude-sonnet-4-5",
    });
    expect(chosen).toMatchObject({ provider: "anthropic", id: "claude-sonnet-4-5" });
    expect(await registry.isAvailable(chosen)).toBe(false);
    // a choice that names no model falls back as before
    const unknown = await defaultModel(registry, registry.credentials, { provider: "nope" });
    expect(unknown.provider).toBe("openai");
  });
});

describe("available models", () => {
  test("a keyless custom provider counts as usable and becomes the default", async () => {
    await using dir = await tempAgentDir({
      models: {
        providers: {
          ollama: {
            baseUrl: "http://localhost:11434/v1",
            api: "openai-completions",
            models: [{ id: "qwen" }],
          },
        },
      },
    });
    const registry = new ModelRegistry({ agentDir: dir.agentDir, env: {} });
    expect((await registry.available()).map((m) => `${m.provider}/${m.id}`)).toEqual([
      "demo/demo",
      "ollama/qwen",
    ]);
    expect((await defaultModel(registry)).provider).toBe("ollama");
    expect((await registry.defaultModel()).provider).toBe("ollama");
    const models = await registry.list();
    expect(await registry.isAvailable(models.find((m) => m.provider === "ollama")!)).toBe(true);
    expect(await registry.isAvailable(models.find((m) => m.provider === "openai")!)).toBe(false);
    expect(await registry.isAvailable(DEMO_MODEL)).toBe(true);
  });

  test("a provider whose key comes from !command runs it once per listing", async () => {
    await using dir = await tempAgentDir();
    const counter = `${dir.root}/count`;
    await dir.write("models.json", {
      providers: {
        cmd: {
          baseUrl: "http://x/v1",
          api: "openai-completions",
          apiKey: `!echo run >> ${counter}; echo key`,
          models: [{ id: "a" }, { id: "b" }],
        },
      },
    });
    const registry = new ModelRegistry({ agentDir: dir.agentDir, env: { PATH: process.env.PATH } });
    expect((await registry.available()).filter((m) => m.provider === "cmd")).toHaveLength(2);
    expect((await Bun.file(counter).text()).trim().split("\n")).toHaveLength(1);
  });
});
