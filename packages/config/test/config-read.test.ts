import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { contentVersion, readConfig, setProjectTrust, writeConfig } from "../src/index.ts";
import { put, rejection } from "./support/files.ts";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("config/read", () => {
  test("without cwd only global settings are read and versions has no project", async () => {
    await using dir = await tempAgentDir();
    const raw = '{"theme":"dark","retry":{"maxRetries":2}}';
    await put(dir.agentDir, "settings.json", raw);
    await put(dir.cwd, ".knightcode/settings.json", { theme: "light" });
    const result = await readConfig({ agentDir: dir.agentDir });
    expect(result).toEqual({
      settings: { theme: "dark", retry: { maxRetries: 2 } },
      origins: { theme: "global", "retry.maxRetries": "global" },
      versions: { global: sha(raw) },
      errors: [],
    });
  });

  test("absent files read as empty with version none", async () => {
    await using dir = await tempAgentDir();
    expect(await readConfig({ agentDir: dir.agentDir, cwd: dir.cwd })).toEqual({
      settings: {},
      origins: {},
      versions: { global: "none", project: "none" },
      errors: [],
    });
  });

  test("trusted project settings merge over global with origins", async () => {
    await using dir = await tempAgentDir();
    const projectRaw = '{"theme":"light","retry":{"enabled":false}}';
    await put(dir.agentDir, "settings.json", { theme: "dark", retry: { maxRetries: 2 } });
    await put(dir.cwd, ".knightcode/settings.json", projectRaw);
    await setProjectTrust(dir.agentDir, dir.cwd, true);
    const result = await readConfig({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(result.settings).toEqual({ theme: "light", retry: { maxRetries: 2, enabled: false } });
    expect(result.origins).toEqual({
      theme: "project",
      "retry.maxRetries": "global",
      "retry.enabled": "project",
    });
    expect(result.versions.project).toBe(sha(projectRaw));
  });

  test("an untrusted or undecided project is not read and reports version none", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "settings.json", { theme: "dark" });
    await put(dir.cwd, ".knightcode/settings.json", { theme: "light" });
    const undecided = await readConfig({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(undecided.settings).toEqual({ theme: "dark" });
    expect(undecided.versions.project).toBe("none");
    await setProjectTrust(dir.agentDir, dir.cwd, false);
    const refused = await readConfig({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(refused.settings).toEqual({ theme: "dark" });
    expect(refused.versions.project).toBe("none");
  });

  test("a parse error is a settings warning with line and column; the other scope still reads", async () => {
    await using dir = await tempAgentDir();
    const bad = '{\n  "theme": "dark",\n  "x": nope\n}\n';
    const path = await put(dir.agentDir, "settings.json", bad);
    await put(dir.cwd, ".knightcode/settings.json", { theme: "light" });
    await setProjectTrust(dir.agentDir, dir.cwd, true);
    const result = await readConfig({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(result.settings).toEqual({ theme: "light" });
    expect(result.versions.global).toBe(sha(bad));
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ source: "settings", path, line: 3, column: 8 });
  });

  test("legacy keys are migrated on read", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "settings.json", { queueMode: "all", retry: { maxDelayMs: 7 } });
    const result = await readConfig({ agentDir: dir.agentDir });
    expect(result.settings).toEqual({ steeringMode: "all", retry: { provider: { maxRetryDelayMs: 7 } } });
    expect(Object.keys(result.origins).sort()).toEqual(["retry.provider.maxRetryDelayMs", "steeringMode"]);
  });

  test("a __proto__ key in a file is dropped with a warning and pollutes nothing", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "settings.json", '{"__proto__": {"polluted": true}, "theme": "dark"}');
    const result = await readConfig({ agentDir: dir.agentDir });
    expect(result.settings).toEqual({ theme: "dark" });
    expect(result.errors[0]?.message).toContain("__proto__");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("an unreadable settings file is internal", async () => {
    await using dir = await tempAgentDir();
    await mkdir(join(dir.agentDir, "settings.json"));
    expect(await rejection(readConfig({ agentDir: dir.agentDir }))).toMatchObject({ code: "internal" });
  });

  test("a corrupt trust store is internal", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "trusted-projects.json", "{oops");
    expect(await rejection(readConfig({ agentDir: dir.agentDir, cwd: dir.cwd }))).toMatchObject({
      code: "internal",
    });
  });

  test("settings and version always come from the same read, even during writes", async () => {
    await using dir = await tempAgentDir();
    const writes = Array.from({ length: 30 }, (_, i) =>
      writeConfig({ agentDir: dir.agentDir, scope: "global", key: `k${i}`, value: i }),
    );
    const reads = Array.from({ length: 30 }, () => readConfig({ agentDir: dir.agentDir }));
    await Promise.all(writes);
    for (const read of await Promise.all(reads)) {
      // Writers format files as 2-space JSON, so a consistent read hashes back to its version.
      if (read.versions.global === "none") expect(read.settings).toEqual({});
      else expect(contentVersion(`${JSON.stringify(read.settings, null, 2)}\n`)).toBe(read.versions.global);
    }
  });
});
