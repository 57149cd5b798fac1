import { describe, expect, test } from "bun:test";
import { cp, realpath, symlink } from "node:fs/promises";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { buildSystemPrompt, loadThreadConfig, readConfig, setProjectTrust } from "../src/index.ts";
import { put } from "./support/files.ts";

const FIXTURE = join(import.meta.dir, "fixtures", "untrusted-project");
const MARKER = "UNTRUSTED-PROJECT-LEAK";

/** Everything a thread start computes from config for a working directory. */
async function everythingFor(agentDir: string, cwd: string) {
  const thread = await loadThreadConfig({ agentDir, cwd });
  const config = await readConfig({ agentDir, cwd });
  const prompt = buildSystemPrompt({
    defaultPrompt: "Default prompt.",
    tools: [],
    contextFiles: thread.contextFiles,
    files: thread.systemPromptFiles,
    skills: thread.resources.skills,
    date: new Date(0),
    cwd,
  });
  return { loaded: thread.settings, resources: thread.resources, thread, config, prompt };
}

describe("loadThreadConfig", () => {
  test("gathers settings, context-file and resource warnings", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "settings.json", '{"extensions": ["./gone.ts"]}');
    await put(dir.cwd, ".knightcode/settings.json", "{}");
    const thread = await loadThreadConfig({ agentDir: dir.agentDir, cwd: dir.cwd });
    expect(thread.warnings.map((w) => w.source)).toEqual(["trust", "extension"]);
  });
});

describe("an untrusted project fixture armed to fail loudly", () => {
  test.each([
    ["undecided", null],
    ["distrusted", false],
  ] as const)(
    "%s: its settings, extensions, skills, prompts, themes and SYSTEM.md are not read",
    async (_, decision) => {
      await using dir = await tempAgentDir({ settings: { theme: "dark" } });
      await put(dir.agentDir, "SYSTEM.md", "Agent system prompt.");
      const cwd = join(dir.root, "fixture");
      await cp(FIXTURE, cwd, { recursive: true });
      if (decision !== null) await setProjectTrust(dir.agentDir, cwd, decision);

      const all = await everythingFor(dir.agentDir, cwd);
      expect(JSON.stringify(all)).not.toContain(MARKER);
      expect(all.loaded.settings).toEqual({ theme: "dark" });
      expect(all.config.versions.project).toBe("none");
      expect(all.resources.extensions).toEqual([]);
      expect(all.prompt).toContain("Agent system prompt.");
      // Context files need no trust.
      expect(all.prompt).toContain("Context files need no trust");
      expect(all.loaded.trust).toEqual({ trusted: decision, needsTrust: decision === null });
    },
  );

  test("the fixture is armed: once trusted, everything in it loads and its extension explodes", async () => {
    await using dir = await tempAgentDir({ settings: { theme: "dark" } });
    const cwd = join(dir.root, "fixture");
    await cp(FIXTURE, cwd, { recursive: true });
    await setProjectTrust(dir.agentDir, cwd, true);
    const all = await everythingFor(dir.agentDir, cwd);
    expect(all.loaded.settings.theme).toBe(MARKER);
    expect(all.prompt).toContain(`${MARKER}: this SYSTEM.md`);
    expect(all.prompt).toContain(`${MARKER}: appended`);
    expect(all.resources.skills.map((s) => s.name)).toEqual(["leak"]);
    expect(all.resources.prompts.map((p) => p.name)).toEqual(["leak"]);
    expect(all.resources.themes.map((t) => t.name)).toEqual([MARKER]);
    expect(all.resources.extensions.map((e) => e.path)).toEqual([
      join(cwd, ".knightcode", "extensions", "explode.ts"),
    ]);
    const extension = all.resources.extensions[0]!.path;
    await expect(import(extension)).rejects.toThrow(MARKER);
  });
});

describe("project files come from the directory trust was decided for", () => {
  test("through a symlinked cwd, every project-local file is read below the real path", async () => {
    await using dir = await tempAgentDir();
    await put(dir.cwd, ".knightcode/SYSTEM.md", "Project prompt.");
    await put(dir.cwd, ".knightcode/prompts/p.md", "A prompt");
    await setProjectTrust(dir.agentDir, dir.cwd, true);
    const alias = join(dir.root, "alias");
    await symlink(dir.cwd, alias);
    const thread = await loadThreadConfig({ agentDir: dir.agentDir, cwd: alias });
    const real = await realpath(dir.cwd);
    expect(thread.settings.projectDir).toBe(real);
    expect(thread.systemPromptFiles.system?.path).toBe(join(real, ".knightcode", "SYSTEM.md"));
    expect(thread.resources.prompts.map((p) => p.path)).toEqual([
      join(real, ".knightcode", "prompts", "p.md"),
    ]);
  });
});
