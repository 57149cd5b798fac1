import { describe, expect, test } from "bun:test";
import { stat } from "node:fs/promises";
import { tempAgentDir } from "@knightcode/testkit";
import { CredentialError, CredentialResolver, resolveKeyValue } from "../src/index.ts";

describe("resolveKeyValue", () => {
  test("a literal stays literal", () => {
    expect(resolveKeyValue("sk-literal-123", {})).toBe("sk-literal-123");
  });
  test("the name of a set environment variable resolves to its value", () => {
    expect(resolveKeyValue("MY_KEY", { MY_KEY: "from-env" })).toBe("from-env");
  });
  test("an unset variable name is taken literally", () => {
    expect(resolveKeyValue("UNSET_KEY", {})).toBe("UNSET_KEY");
  });
  test("!command uses the trimmed stdout", () => {
    expect(resolveKeyValue("!printf '  cmd-key\\n'", { PATH: process.env.PATH })).toBe("cmd-key");
  });
  test("a failing !command is a CredentialError naming the command", () => {
    expect(() => resolveKeyValue("!exit 3", { PATH: process.env.PATH })).toThrow(CredentialError);
    expect(() => resolveKeyValue("!exit 3", { PATH: process.env.PATH })).toThrow(/exit 3/);
  });
});

describe("CredentialResolver", () => {
  test("auth.json beats the environment, which beats models.json", async () => {
    await using dir = await tempAgentDir({ auth: { anthropic: { type: "api_key", key: "from-auth" } } });
    const env = { ANTHROPIC_API_KEY: "from-env", OPENAI_API_KEY: "oa-env" };
    const credentials = new CredentialResolver({ agentDir: dir.agentDir, env });
    expect(await credentials.getApiKey("anthropic", "from-models")).toBe("from-auth");
    expect(await credentials.getApiKey("openai", "from-models")).toBe("oa-env");
    expect(await credentials.getApiKey("custom", "from-models")).toBe("from-models");
    expect(await credentials.getApiKey("custom")).toBeUndefined();
  });

  test("a bare string entry in auth.json is a key", async () => {
    await using dir = await tempAgentDir({ auth: { openai: "plain" } });
    const credentials = new CredentialResolver({ agentDir: dir.agentDir, env: {} });
    expect(await credentials.getApiKey("openai")).toBe("plain");
    expect(await credentials.hasBuiltInCredentials()).toBe(true);
  });

  test("no auth.json and no env vars means no credentials", async () => {
    await using dir = await tempAgentDir();
    const credentials = new CredentialResolver({ agentDir: dir.agentDir, env: {} });
    expect(await credentials.hasBuiltInCredentials()).toBe(false);
  });

  test("a malformed auth.json holds no keys, names itself in problem(), and is read again once fixed", async () => {
    await using dir = await tempAgentDir({ auth: "{not json" });
    const credentials = new CredentialResolver({
      agentDir: dir.agentDir,
      env: { OPENAI_API_KEY: "from-env" },
    });
    expect(await credentials.getApiKey("openai")).toBe("from-env");
    expect(await credentials.getApiKey("anthropic")).toBeUndefined();
    expect((await credentials.problem())?.message).toMatch(/^Malformed .*auth\.json: JSON Parse error/);
    await expect(credentials.readAuth()).rejects.toThrow(CredentialError);
    // saving a key must not replace the broken file's other entries with nothing
    await expect(credentials.saveApiKey("anthropic", "k")).rejects.toThrow(/Malformed/);
    await Bun.write(dir.authJsonPath, JSON.stringify({ anthropic: "fixed" }));
    expect(await credentials.problem()).toBeUndefined();
    expect(await credentials.getApiKey("anthropic")).toBe("fixed");
  });

  test("saveApiKey writes auth.json with mode 0600 and keeps other entries", async () => {
    await using dir = await tempAgentDir({ auth: { openai: "keep" } });
    const credentials = new CredentialResolver({ agentDir: dir.agentDir, env: {} });
    await credentials.saveApiKey("anthropic", "saved");
    expect(await credentials.getApiKey("anthropic")).toBe("saved");
    expect(await credentials.getApiKey("openai")).toBe("keep");
    expect((await stat(dir.authJsonPath)).mode & 0o777).toBe(0o600);
  });
});
