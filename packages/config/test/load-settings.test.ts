import { describe, expect, test } from "bun:test";
import { tempAgentDir } from "@knightcode/testkit";
import { loadSettings, resolveCompactionSettings, setProjectTrust } from "../src/index.ts";
import { put } from "./support/files.ts";

describe("loadSettings", () => {
  test("merges trusted project settings and resolves compaction after the merge", async () => {
    await using dir = await tempAgentDir({
      settings: { theme: "dark", compaction: { models: { "p/m": { reserveTokens: 7 } } } },
    });
    await put(dir.cwd, ".knightcode/settings.json", { compaction: { reserveTokens: 99 }, theme: "light" });
    await setProjectTrust(dir.agentDir, dir.cwd, true);
    const loaded = await loadSettings({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(loaded.trusted).toBe(true);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.settings.theme).toBe("light");
    expect(resolveCompactionSettings(loaded.settings, "p/m").reserveTokens).toBe(7);
    expect(resolveCompactionSettings(loaded.settings, "p/x").reserveTokens).toBe(99);
  });

  test("undecided trust with project resources yields a trust warning and loads nothing project-local", async () => {
    await using dir = await tempAgentDir({ settings: { theme: "dark" } });
    await put(dir.cwd, ".knightcode/settings.json", { theme: "light" });
    const loaded = await loadSettings({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(loaded.trust).toEqual({ trusted: null, needsTrust: true });
    expect(loaded.settings).toEqual({ theme: "dark" });
    expect(loaded.warnings).toEqual([expect.objectContaining({ source: "trust", path: dir.cwd })]);
  });

  test("no trust warning when nothing project-local would load", async () => {
    await using dir = await tempAgentDir();
    expect((await loadSettings({ agentDir: dir.agentDir, cwd: dir.cwd })).warnings).toEqual([]);
  });

  test("malformed settings surface as settings warnings", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "settings.json", "{\n  oops\n}");
    const loaded = await loadSettings({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(loaded.warnings).toEqual([expect.objectContaining({ source: "settings", line: 2, column: 3 })]);
  });

  test("a corrupt trust store does not stop a thread: trust warning, project not loaded", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "trusted-projects.json", "{bad");
    await put(dir.cwd, ".knightcode/settings.json", { theme: "light" });
    const loaded = await loadSettings({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(loaded.trusted).toBe(false);
    expect(loaded.settings).toEqual({});
    expect(loaded.warnings[0]).toMatchObject({ source: "trust" });
  });
});
