import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { resolveSessionDir } from "../src/index.ts";
import { put } from "./support/files.ts";

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

  test("needs no trust: project settings never redirect sessions", async () => {
    await using dir = await tempAgentDir();
    await put(dir.cwd, ".knightcode/settings.json", { sessionDir: "/project/sessions" });
    expect((await resolveSessionDir({ agentDir: dir.agentDir, env: {} })).source).toBe("default");
  });
});
