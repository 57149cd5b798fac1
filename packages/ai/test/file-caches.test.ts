/**
 * The registry and credentials keep what they parsed while `models.json` and `auth.json`
 * are unchanged, and see every change (edit, replace, removal) at once.
 */
import { describe, expect, test } from "bun:test";
import { rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { CredentialResolver, ModelRegistry } from "../src/index.ts";

const modelsJson = (id: string) =>
  JSON.stringify({
    providers: {
      local: {
        baseUrl: "http://127.0.0.1:1/v1",
        api: "openai-completions",
        models: [{ id, name: id, reasoning: false, input: ["text"], contextWindow: 1000, maxTokens: 100 }],
      },
    },
  });

describe("file caches", () => {
  test("ModelRegistry lists afresh whenever models.json changes, and reports a malformed file every time", async () => {
    await using agent = await tempAgentDir({});
    const path = join(agent.agentDir, "models.json");
    const registry = new ModelRegistry({ agentDir: agent.agentDir, env: {} });
    const builtIn = (await registry.list()).length;
    expect(await registry.find("local", "one")).toBeUndefined();

    writeFileSync(path, modelsJson("one"));
    expect((await registry.find("local", "one"))?.id).toBe("one");
    // a file changed within the last second is read afresh; an older one is kept
    expect(await registry.list()).not.toBe(await registry.list());
    utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const kept = await registry.list();
    expect(await registry.list()).toBe(kept);

    writeFileSync(path, modelsJson("two-longer"));
    expect(await registry.find("local", "one")).toBeUndefined();
    expect((await registry.find("local", "two-longer"))?.id).toBe("two-longer");

    writeFileSync(path, "{ not json");
    expect((await registry.list()).length).toBe(builtIn);
    expect(await registry.configProblem()).toBeDefined();
    expect(await registry.find("local", "two-longer")).toBeUndefined();

    rmSync(path);
    expect((await registry.list()).length).toBe(builtIn);
  });

  test("registering a provider at runtime is seen by the next list even with models.json unchanged", async () => {
    await using agent = await tempAgentDir({});
    const path = join(agent.agentDir, "models.json");
    writeFileSync(path, modelsJson("one"));
    utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const registry = new ModelRegistry({ agentDir: agent.agentDir, env: {} });
    const before = await registry.list();
    expect(await registry.list()).toBe(before);
    registry.registerProvider({
      name: "ext",
      baseUrl: "http://127.0.0.1:1/v1",
      api: "openai-completions",
      models: [
        { id: "x", name: "x", reasoning: false, input: ["text"], contextWindow: 1000, maxTokens: 100 },
      ],
    } as Parameters<ModelRegistry["registerProvider"]>[0]);
    expect((await registry.find("ext", "x"))?.id).toBe("x");
    registry.unregisterProvider("ext");
    expect(await registry.find("ext", "x")).toBeUndefined();
    expect((await registry.find("local", "one"))?.id).toBe("one");
  });

  test("CredentialResolver sees auth.json edits and hands out copies", async () => {
    await using agent = await tempAgentDir({});
    const path = join(agent.agentDir, "auth.json");
    const credentials = new CredentialResolver({ agentDir: agent.agentDir, env: {} });
    expect(await credentials.getApiKey("anthropic")).toBeUndefined();

    writeFileSync(path, JSON.stringify({ anthropic: "key-1" }));
    expect(await credentials.getApiKey("anthropic")).toBe("key-1");
    utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    expect(await credentials.getApiKey("anthropic")).toBe("key-1");
    const copy = await credentials.readAuth();
    copy.openai = "mutated";
    expect((await credentials.readAuth()).openai).toBeUndefined();

    writeFileSync(path, JSON.stringify({ anthropic: "key-22" }));
    expect(await credentials.getApiKey("anthropic")).toBe("key-22");

    writeFileSync(path, "[");
    await expect(credentials.readAuth()).rejects.toBeDefined();
    await expect(credentials.readAuth()).rejects.toBeDefined();
    rmSync(path);
    expect(await credentials.readAuth()).toEqual({});
  });
});
