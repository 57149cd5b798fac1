import { describe, expect, test } from "bun:test";
import { readdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { ConfigError, contentVersion, readConfig, setProjectTrust, writeConfig } from "../src/index.ts";
import { put, rejection } from "./support/files.ts";

const readJson = async (path: string) => JSON.parse(await readFile(path, "utf8"));

describe("config/write", () => {
  test("writes a dotted key, creating the file, and returns the new version", async () => {
    await using dir = await tempAgentDir();
    const { version } = await writeConfig({
      agentDir: dir.agentDir,
      scope: "global",
      key: "retry.provider.maxRetryDelayMs",
      value: 5000,
      expectedVersion: "none",
    });
    const raw = await readFile(dir.settingsJsonPath, "utf8");
    expect(JSON.parse(raw)).toEqual({ retry: { provider: { maxRetryDelayMs: 5000 } } });
    expect(version).toBe(contentVersion(raw));
    expect((await readConfig({ agentDir: dir.agentDir })).versions.global).toBe(version);
  });

  test("value null deletes the leaf and prunes emptied parents", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "settings.json", { theme: "dark", retry: { provider: { maxRetryDelayMs: 1 } } });
    await writeConfig({
      agentDir: dir.agentDir,
      scope: "global",
      key: "retry.provider.maxRetryDelayMs",
      value: null,
    });
    expect(await readJson(dir.settingsJsonPath)).toEqual({ theme: "dark" });
  });

  test("deleting an absent key leaves an existing file byte-identical", async () => {
    await using dir = await tempAgentDir();
    const raw = '{"theme":"dark"}';
    await put(dir.agentDir, "settings.json", raw);
    const result = await writeConfig({ agentDir: dir.agentDir, scope: "global", key: "nope.x", value: null });
    expect(result).toEqual({ version: contentVersion(raw) });
    expect(await readFile(dir.settingsJsonPath, "utf8")).toBe(raw);
  });

  test("deleting from an absent file creates nothing", async () => {
    await using dir = await tempAgentDir();
    const result = await writeConfig({ agentDir: dir.agentDir, scope: "global", key: "theme", value: null });
    expect(result).toEqual({ version: "none" });
    expect(await readdir(dir.agentDir)).toEqual([]);
  });

  test("bracketed keys address model IDs with dots", async () => {
    await using dir = await tempAgentDir();
    await writeConfig({
      agentDir: dir.agentDir,
      scope: "global",
      key: 'compaction.models["openai/gpt-4.1"].reserveTokens',
      value: 100,
    });
    expect(await readJson(dir.settingsJsonPath)).toEqual({
      compaction: { models: { "openai/gpt-4.1": { reserveTokens: 100 } } },
    });
    const read = await readConfig({ agentDir: dir.agentDir });
    expect(read.origins).toEqual({ 'compaction.models["openai/gpt-4.1"].reserveTokens': "global" });
  });

  test("a stale expectedVersion yields configConflict with the current version", async () => {
    await using dir = await tempAgentDir();
    const first = await writeConfig({ agentDir: dir.agentDir, scope: "global", key: "theme", value: "dark" });
    const before = await readFile(dir.settingsJsonPath, "utf8");
    const error = await rejection(
      writeConfig({
        agentDir: dir.agentDir,
        scope: "global",
        key: "theme",
        value: "light",
        expectedVersion: "none",
      }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ code: "configConflict", data: { version: first.version } });
    expect(await readFile(dir.settingsJsonPath, "utf8")).toBe(before);
  });

  test("a matching expectedVersion succeeds", async () => {
    await using dir = await tempAgentDir();
    const first = await writeConfig({ agentDir: dir.agentDir, scope: "global", key: "theme", value: "dark" });
    const second = await writeConfig({
      agentDir: dir.agentDir,
      scope: "global",
      key: "theme",
      value: "light",
      expectedVersion: first.version,
    });
    expect(second.version).not.toBe(first.version);
  });

  test("a corrupt settings file stays byte-identical after a refused write", async () => {
    await using dir = await tempAgentDir();
    const corrupt = '{\n  "theme": "dark",,\n}';
    await put(dir.agentDir, "settings.json", corrupt);
    const error = await rejection(
      writeConfig({ agentDir: dir.agentDir, scope: "global", key: "theme", value: "x" }),
    );
    expect(error).toMatchObject({ code: "internal" });
    expect(error.message).toContain("line 2");
    expect(await readFile(dir.settingsJsonPath, "utf8")).toBe(corrupt);
    expect((await readdir(dir.agentDir)).sort()).toEqual(["settings.json"]);
  });

  test("a non-object settings file is refused untouched", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "settings.json", "[1,2]");
    expect(
      await rejection(writeConfig({ agentDir: dir.agentDir, scope: "global", key: "a", value: 1 })),
    ).toMatchObject({ code: "internal" });
    expect(await readFile(dir.settingsJsonPath, "utf8")).toBe("[1,2]");
  });

  test("every prototype-pollution key is refused and Object.prototype is untouched", async () => {
    await using dir = await tempAgentDir();
    const keys = [
      "__proto__",
      "__proto__.polluted",
      "constructor",
      "constructor.prototype.polluted",
      "prototype",
      "a.prototype",
      "a.constructor.b",
      'x["__proto__"].polluted',
    ];
    for (const key of keys) {
      const error = await rejection(
        writeConfig({ agentDir: dir.agentDir, scope: "global", key, value: true }),
      );
      expect(error).toMatchObject({ code: "invalidParams", data: { reason: "prototypePollution" } });
    }
    const inValue = await rejection(
      writeConfig({
        agentDir: dir.agentDir,
        scope: "global",
        key: "a",
        value: JSON.parse('{"b": {"__proto__": {"polluted": true}}}'),
      }),
    );
    expect(inValue).toMatchObject({ code: "invalidParams", data: { reason: "prototypePollution" } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
    expect(await readdir(dir.agentDir)).toEqual([]);
  });

  test.each(["", "a..b", ".a", "a.", "a[1]"])("malformed key %p is invalidParams", async (key) => {
    await using dir = await tempAgentDir();
    const error = await rejection(writeConfig({ agentDir: dir.agentDir, scope: "global", key, value: 1 }));
    expect(error).toMatchObject({ code: "invalidParams", data: { reason: "malformedKey" } });
  });

  test("a key through a non-object value is invalidParams and leaves the file alone", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "settings.json", { theme: "dark" });
    const before = await readFile(dir.settingsJsonPath, "utf8");
    const error = await rejection(
      writeConfig({ agentDir: dir.agentDir, scope: "global", key: "theme.x", value: 1 }),
    );
    expect(error).toMatchObject({ code: "invalidParams" });
    expect(await readFile(dir.settingsJsonPath, "utf8")).toBe(before);
  });

  test("missing or non-JSON values and unknown scopes are invalidParams", async () => {
    await using dir = await tempAgentDir();
    const base = { agentDir: dir.agentDir, scope: "global" as const, key: "a" };
    expect(await rejection(writeConfig({ ...base, value: undefined }))).toMatchObject({
      code: "invalidParams",
    });
    expect(await rejection(writeConfig({ ...base, value: Number.NaN }))).toMatchObject({
      code: "invalidParams",
    });
    expect(await rejection(writeConfig({ ...base, value: new Date() }))).toMatchObject({
      code: "invalidParams",
    });
    const badScope = { ...base, scope: "user" as unknown as "global", value: 1 };
    expect(await rejection(writeConfig(badScope))).toMatchObject({ data: { reason: "invalidScope" } });
  });

  test("project writes need a cwd", async () => {
    await using dir = await tempAgentDir();
    const error = await rejection(
      writeConfig({ agentDir: dir.agentDir, scope: "project", key: "theme", value: "x" }),
    );
    expect(error).toMatchObject({ code: "invalidParams", data: { reason: "missingCwd" } });
  });

  test("project writes to an undecided or distrusted project are invalidParams untrusted", async () => {
    await using dir = await tempAgentDir();
    const write = () =>
      writeConfig({ agentDir: dir.agentDir, scope: "project", key: "theme", value: "x", cwd: dir.cwd });
    expect(await rejection(write())).toMatchObject({ code: "invalidParams", data: { reason: "untrusted" } });
    await setProjectTrust(dir.agentDir, dir.cwd, false);
    expect(await rejection(write())).toMatchObject({ code: "invalidParams", data: { reason: "untrusted" } });
    expect(await readdir(dir.cwd)).toEqual([]);
  });

  test("a trusted project write lands in .knightcode/settings.json, also through a symlink", async () => {
    await using dir = await tempAgentDir();
    await setProjectTrust(dir.agentDir, dir.cwd, true);
    const alias = join(dir.root, "alias");
    await symlink(dir.cwd, alias);
    await writeConfig({ agentDir: dir.agentDir, scope: "project", key: "theme", value: "light", cwd: alias });
    expect(await readJson(join(dir.cwd, ".knightcode", "settings.json"))).toEqual({ theme: "light" });
    const read = await readConfig({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(read.origins).toEqual({ theme: "project" });
  });

  test("migrations run before the edit, so deleting a canonical key does not resurrect it", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "settings.json", { queueMode: "all", retry: { maxDelayMs: 9 } });
    expect((await readConfig({ agentDir: dir.agentDir })).settings).toMatchObject({ steeringMode: "all" });
    await writeConfig({ agentDir: dir.agentDir, scope: "global", key: "steeringMode", value: null });
    await writeConfig({
      agentDir: dir.agentDir,
      scope: "global",
      key: "retry.provider.maxRetryDelayMs",
      value: null,
    });
    expect(await readJson(dir.settingsJsonPath)).toEqual({});
    expect((await readConfig({ agentDir: dir.agentDir })).settings).toEqual({});
  });

  test("an unwritable location is internal", async () => {
    await using dir = await tempAgentDir();
    const fileAsDir = await put(dir.root, "not-a-dir", "x");
    const error = await rejection(writeConfig({ agentDir: fileAsDir, scope: "global", key: "a", value: 1 }));
    expect(error).toMatchObject({ code: "internal" });
  });

  test("concurrent writes in one process share the file's queue and lose nothing", async () => {
    await using dir = await tempAgentDir();
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        writeConfig({ agentDir: dir.agentDir, scope: "global", key: `k.n${i}`, value: i }),
      ),
    );
    const settings = (await readConfig({ agentDir: dir.agentDir })).settings as { k: Record<string, number> };
    expect(Object.keys(settings.k)).toHaveLength(60);
  });

  test("concurrent expectedVersion increments in one process all land after retries", async () => {
    await using dir = await tempAgentDir();
    const increment = async () => {
      for (;;) {
        const read = await readConfig({ agentDir: dir.agentDir });
        const current = typeof read.settings.counter === "number" ? read.settings.counter : 0;
        try {
          await writeConfig({
            agentDir: dir.agentDir,
            scope: "global",
            key: "counter",
            value: current + 1,
            expectedVersion: read.versions.global,
          });
          return;
        } catch (error) {
          if (!(error instanceof ConfigError) || error.code !== "configConflict") throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: 25 }, increment));
    expect((await readConfig({ agentDir: dir.agentDir })).settings.counter).toBe(25);
  });
});
