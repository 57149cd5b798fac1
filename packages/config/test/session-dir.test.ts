import { describe, expect, test } from "bun:test";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { readConfig, resolveSessionDir, setProjectTrust } from "../src/index.ts";
import { fifo, put } from "./support/files.ts";

describe("session directory", () => {
  test("flag, then env, then the global sessionDir setting, then the default layout", async () => {
    await using dir = await tempAgentDir({ settings: { sessionDir: "my-sessions" } });
    const env = { KNIGHTCODE_CODING_AGENT_SESSION_DIR: "/env/sessions" };
    expect(await resolveSessionDir({ agentDir: dir.agentDir, flag: "/flag/dir", env })).toMatchObject({
      dir: "/flag/dir",
      source: "flag",
    });
    expect(await resolveSessionDir({ agentDir: dir.agentDir, env })).toMatchObject({
      dir: "/env/sessions",
      source: "env",
    });
    expect(await resolveSessionDir({ agentDir: dir.agentDir, env: {} })).toMatchObject({
      dir: join(dir.agentDir, "my-sessions"),
      source: "settings",
    });
  });

  test("without overrides the per-project layout root is used; a broken settings file warns", async () => {
    await using dir = await tempAgentDir();
    expect(await resolveSessionDir({ agentDir: dir.agentDir, env: {} })).toEqual({
      dir: join(dir.agentDir, "sessions"),
      source: "default",
      warnings: [],
    });
    await put(dir.agentDir, "settings.json", "{");
    const broken = await resolveSessionDir({ agentDir: dir.agentDir, env: {} });
    expect(broken.source).toBe("default");
    expect(broken.warnings).toHaveLength(1);
  });

  test("global settings the caller already read are used instead of reading the file again", async () => {
    await using dir = await tempAgentDir({ settings: { sessionDir: "/on-disk" } });
    const passed = { sessionDir: "already-read" };
    expect(await resolveSessionDir({ agentDir: dir.agentDir, env: {}, globalSettings: passed })).toEqual({
      dir: join(dir.agentDir, "already-read"),
      source: "settings",
      warnings: [],
    });
    // A broken file is not read (its warning belongs to the caller's read); null means no settings.
    await put(dir.agentDir, "settings.json", "{");
    expect(await resolveSessionDir({ agentDir: dir.agentDir, env: {}, globalSettings: null })).toEqual({
      dir: join(dir.agentDir, "sessions"),
      source: "default",
      warnings: [],
    });
    // The flag and the environment still come first.
    const env = { KNIGHTCODE_CODING_AGENT_SESSION_DIR: "/env/sessions" };
    expect(await resolveSessionDir({ agentDir: dir.agentDir, env, globalSettings: passed })).toMatchObject({
      dir: "/env/sessions",
      source: "env",
    });
  });

  test("without a cwd (the app server) a project file never redirects sessions", async () => {
    await using dir = await tempAgentDir({ settings: { sessionDir: "/global/sessions" } });
    await put(dir.cwd, ".knightcode/settings.json", { sessionDir: "/project/sessions" });
    expect(await resolveSessionDir({ agentDir: dir.agentDir, env: {} })).toMatchObject({
      dir: "/global/sessions",
      source: "settings",
    });
  });

  test.each([
    ["undecided", null],
    ["distrusted", false],
    ["trusted", true],
  ] as const)(
    "with a cwd the project sessionDir is read before trust (%s) and beats the global one",
    async (_, decision) => {
      await using dir = await tempAgentDir({ settings: { sessionDir: "/global/sessions" } });
      await put(dir.cwd, ".knightcode/settings.json", { sessionDir: "../project-sessions", theme: "x" });
      if (decision !== null) await setProjectTrust(dir.agentDir, dir.cwd, decision);
      const resolved = await resolveSessionDir({ agentDir: dir.agentDir, env: {}, cwd: dir.cwd });
      // Relative to the folder holding the file, as the global setting is to the agent dir.
      expect(resolved).toEqual({ dir: join(dir.cwd, "project-sessions"), source: "project", warnings: [] });
      // The exception is sessionDir alone: the rest of an untrusted file stays unread.
      if (decision !== true) {
        expect((await readConfig({ agentDir: dir.agentDir, cwd: dir.cwd })).settings).toEqual({
          sessionDir: "/global/sessions",
        });
      }
    },
  );

  test("an untrusted project's sessionDir pointing outside the project is ignored with a trust warning", async () => {
    await using dir = await tempAgentDir({ settings: { sessionDir: "/global/sessions" } });
    const outsideDir = join(dir.root, "home", ".bashrc.d");
    const path = await put(dir.cwd, ".knightcode/settings.json", { sessionDir: outsideDir });
    for (const decision of [null, false] as const) {
      if (decision !== null) await setProjectTrust(dir.agentDir, dir.cwd, decision);
      const resolved = await resolveSessionDir({ agentDir: dir.agentDir, env: {}, cwd: dir.cwd });
      expect(resolved).toMatchObject({ dir: "/global/sessions", source: "settings" });
      expect(resolved.warnings).toEqual([expect.objectContaining({ source: "trust", path })]);
    }
    await setProjectTrust(dir.agentDir, dir.cwd, true);
    expect(await resolveSessionDir({ agentDir: dir.agentDir, env: {}, cwd: dir.cwd })).toEqual({
      dir: outsideDir,
      source: "project",
      warnings: [],
    });
  });

  test("an inside-looking sessionDir that is a symlink out of an untrusted project is ignored", async () => {
    await using dir = await tempAgentDir();
    const outside = join(dir.root, "outside");
    await mkdir(outside);
    await mkdir(join(dir.cwd, ".knightcode"), { recursive: true });
    await symlink(outside, join(dir.cwd, "sessions"));
    await symlink(join(dir.root, "not-there"), join(dir.cwd, "dangling"));
    for (const sessionDir of ["../sessions", "../sessions/deeper", "../dangling/x"]) {
      await put(dir.cwd, ".knightcode/settings.json", { sessionDir });
      const resolved = await resolveSessionDir({ agentDir: dir.agentDir, env: {}, cwd: dir.cwd });
      expect(resolved.source).toBe("default");
      expect(resolved.warnings.map((w) => w.source)).toEqual(["trust"]);
    }
  });

  test("flag and env still beat a project sessionDir", async () => {
    await using dir = await tempAgentDir();
    await put(dir.cwd, ".knightcode/settings.json", { sessionDir: "/project/sessions" });
    const env = { KNIGHTCODE_CODING_AGENT_SESSION_DIR: "/env/sessions" };
    expect(
      (await resolveSessionDir({ agentDir: dir.agentDir, env, cwd: dir.cwd, flag: "/flag" })).source,
    ).toBe("flag");
    expect((await resolveSessionDir({ agentDir: dir.agentDir, env, cwd: dir.cwd })).source).toBe("env");
  });

  test("a project file without sessionDir, or a broken one, falls back to the global setting", async () => {
    await using dir = await tempAgentDir({ settings: { sessionDir: "/global/sessions" } });
    await put(dir.cwd, ".knightcode/settings.json", { theme: "x" });
    expect(await resolveSessionDir({ agentDir: dir.agentDir, env: {}, cwd: dir.cwd })).toEqual({
      dir: "/global/sessions",
      source: "settings",
      warnings: [],
    });
    const path = await put(dir.cwd, ".knightcode/settings.json", '{"sessionDir": ');
    const broken = await resolveSessionDir({ agentDir: dir.agentDir, env: {}, cwd: dir.cwd });
    expect(broken).toMatchObject({ dir: "/global/sessions", source: "settings" });
    expect(broken.warnings).toEqual([expect.objectContaining({ source: "settings", path, line: 1 })]);
  });

  test("an unreadable project settings file (a folder, a FIFO) warns instead of failing or hanging", async () => {
    await using dir = await tempAgentDir();
    await mkdir(join(dir.cwd, ".knightcode", "settings.json"), { recursive: true });
    const resolved = await resolveSessionDir({ agentDir: dir.agentDir, env: {}, cwd: dir.cwd });
    expect(resolved.source).toBe("default");
    expect(resolved.warnings).toEqual([expect.objectContaining({ source: "settings" })]);
    await using other = await tempAgentDir();
    await fifo(other.cwd, ".knightcode/settings.json");
    const fromFifo = await resolveSessionDir({ agentDir: other.agentDir, env: {}, cwd: other.cwd });
    expect(fromFifo.source).toBe("default");
    expect(fromFifo.warnings).toHaveLength(1);
  });
});
