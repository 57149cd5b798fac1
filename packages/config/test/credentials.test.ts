import { describe, expect, test } from "bun:test";
import { chmod, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { readToolsFile, setAuthCredential, setToolsSection } from "../src/index.ts";
import { put, rejection } from "./support/files.ts";

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
const readJson = async (path: string) => JSON.parse(await readFile(path, "utf8"));

describe("auth.json", () => {
  test("is created with mode 0600 and keeps other providers' credentials", async () => {
    await using dir = await tempAgentDir();
    await setAuthCredential(dir.agentDir, "anthropic", { type: "api_key", key: "sk-1" });
    await setAuthCredential(dir.agentDir, "openai", {
      type: "oauth",
      access: "tok",
      refresh: "r",
      expires: 5,
    });
    expect(await modeOf(dir.authJsonPath)).toBe(0o600);
    expect(await readJson(dir.authJsonPath)).toEqual({
      anthropic: { type: "api_key", key: "sk-1" },
      openai: { type: "oauth", access: "tok", refresh: "r", expires: 5 },
    });
    await setAuthCredential(dir.agentDir, "anthropic", null);
    expect(Object.keys(await readJson(dir.authJsonPath))).toEqual(["openai"]);
  });

  test("a looser existing file is tightened to 0600 on write", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "auth.json", { a: "k" });
    await chmod(dir.authJsonPath, 0o644);
    await setAuthCredential(dir.agentDir, "b", { type: "api_key", key: "k2" });
    expect(await modeOf(dir.authJsonPath)).toBe(0o600);
    expect(await readJson(dir.authJsonPath)).toEqual({ a: "k", b: { type: "api_key", key: "k2" } });
  });

  test("concurrent saves for different providers all land", async () => {
    await using dir = await tempAgentDir();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        setAuthCredential(dir.agentDir, `p${i}`, { type: "api_key", key: `${i}` }),
      ),
    );
    expect(Object.keys(await readJson(dir.authJsonPath))).toHaveLength(20);
  });

  test("a corrupt auth.json is never overwritten", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "auth.json", "{nope");
    const error = await rejection(setAuthCredential(dir.agentDir, "x", { type: "api_key", key: "k" }));
    expect(error).toMatchObject({ code: "internal" });
    expect(await readFile(dir.authJsonPath, "utf8")).toBe("{nope");
  });

  test("forbidden or empty provider names are refused", async () => {
    await using dir = await tempAgentDir();
    for (const name of ["__proto__", ""]) {
      const error = await rejection(setAuthCredential(dir.agentDir, name, { type: "api_key", key: "k" }));
      expect(error).toMatchObject({ code: "invalidParams" });
    }
  });
});

describe("tools.json", () => {
  test("sections are written with mode 0600 and read back", async () => {
    await using dir = await tempAgentDir();
    await setToolsSection(dir.agentDir, "webSearch", { provider: "brave", braveApiKey: "bk" });
    await setToolsSection(dir.agentDir, "scratchpad", { enabled: true });
    expect(await modeOf(join(dir.agentDir, "tools.json"))).toBe(0o600);
    expect(await readToolsFile(dir.agentDir)).toEqual({
      tools: { webSearch: { provider: "brave", braveApiKey: "bk" }, scratchpad: { enabled: true } },
      warnings: [],
    });
    await setToolsSection(dir.agentDir, "scratchpad", null);
    expect((await readToolsFile(dir.agentDir)).tools).toEqual({
      webSearch: { provider: "brave", braveApiKey: "bk" },
    });
  });

  test("a malformed tools.json is a warning with its location and is never overwritten", async () => {
    await using dir = await tempAgentDir();
    const path = await put(dir.agentDir, "tools.json", '{\n  "webSearch": }');
    const read = await readToolsFile(dir.agentDir);
    expect(read.tools).toEqual({});
    expect(read.warnings).toEqual([expect.objectContaining({ source: "settings", path, line: 2 })]);
    expect(await rejection(setToolsSection(dir.agentDir, "x", 1))).toMatchObject({ code: "internal" });
    expect(await readFile(path, "utf8")).toBe('{\n  "webSearch": }');
  });
});

describe("prototype-chain keys in secret files", () => {
  test("a __proto__ key in tools.json is dropped with a warning and swaps no prototype", async () => {
    await using dir = await tempAgentDir();
    const path = await put(dir.agentDir, "tools.json", '{"__proto__": {"polluted": true}, "web": {"k": 1}}');
    const { tools, warnings } = await readToolsFile(dir.agentDir);
    expect(Object.keys(tools)).toEqual(["web"]);
    expect(Object.getPrototypeOf(tools)).toBe(Object.prototype);
    expect(warnings).toEqual([expect.objectContaining({ source: "settings", path })]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("values holding a forbidden key are refused before anything is written", async () => {
    await using dir = await tempAgentDir();
    const evil = JSON.parse('{"a": {"__proto__": {"polluted": true}}}');
    expect(await rejection(setToolsSection(dir.agentDir, "web", evil))).toMatchObject({
      code: "invalidParams",
      data: { reason: "prototypePollution" },
    });
    const credential = JSON.parse('{"type": "oauth", "access": "t", "constructor": {"prototype": {}}}');
    expect(await rejection(setAuthCredential(dir.agentDir, "anthropic", credential))).toMatchObject({
      code: "invalidParams",
      data: { reason: "prototypePollution" },
    });
    expect((await readToolsFile(dir.agentDir)).tools).toEqual({});
  });
});
