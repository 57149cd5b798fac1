import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { buildSystemPrompt, resolveSystemPromptFiles } from "../src/index.ts";
import { put } from "./support/files.ts";

describe("SYSTEM.md and APPEND_SYSTEM.md", () => {
  test("agent dir files are used when the project has none", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "SYSTEM.md", "agent system");
    await put(dir.agentDir, "APPEND_SYSTEM.md", "agent append");
    const files = await resolveSystemPromptFiles({ agentDir: dir.agentDir, cwd: dir.cwd, trusted: true });
    expect(files.system?.content).toBe("agent system");
    expect(files.append?.content).toBe("agent append");
  });

  test("a trusted project's file replaces the agent dir's, each file independently", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "SYSTEM.md", "agent system");
    await put(dir.agentDir, "APPEND_SYSTEM.md", "agent append");
    await put(dir.cwd, ".knightcode/APPEND_SYSTEM.md", "project append");
    const files = await resolveSystemPromptFiles({ agentDir: dir.agentDir, cwd: dir.cwd, trusted: true });
    expect(files.system).toEqual({ path: join(dir.agentDir, "SYSTEM.md"), content: "agent system" });
    expect(files.append).toEqual({
      path: join(dir.cwd, ".knightcode", "APPEND_SYSTEM.md"),
      content: "project append",
    });
    const prompt = buildSystemPrompt({
      defaultPrompt: "d",
      tools: [],
      contextFiles: [],
      files,
      date: new Date(0),
      cwd: "/",
    });
    expect(prompt).toContain("project append");
    expect(prompt).not.toContain("agent append");
  });

  test("an untrusted project's files are ignored", async () => {
    await using dir = await tempAgentDir();
    await put(dir.cwd, ".knightcode/SYSTEM.md", "project system");
    const files = await resolveSystemPromptFiles({ agentDir: dir.agentDir, cwd: dir.cwd, trusted: false });
    expect(files).toEqual({ system: null, append: null });
  });
});

describe("buildSystemPrompt", () => {
  const base = {
    defaultPrompt: "You are KnightCode.",
    tools: [
      { name: "read", description: "Read a file" },
      { name: "bash", description: "Run a command" },
    ],
    contextFiles: [
      { path: "/a/AGENTS.md", content: "global rules", scope: "agent" as const },
      { path: "/p/AGENTS.md", content: "  ", scope: "project" as const },
      { path: "/p/x/AGENTS.md", content: "nearest rules", scope: "project" as const },
    ],
    date: new Date("2026-11-30T12:00:00Z"),
    cwd: "/p/x",
  };

  test("default prompt, tools, context files in order, skills, then date and cwd", () => {
    const prompt = buildSystemPrompt({
      ...base,
      skills: [{ name: "pdf", description: "Work with PDFs", path: "/s/pdf/SKILL.md" }],
    });
    const order = [
      "You are KnightCode.",
      "- read: Read a file",
      "- bash: Run a command",
      "## /a/AGENTS.md",
      "global rules",
      "## /p/x/AGENTS.md",
      "nearest rules",
      "- pdf (/s/pdf/SKILL.md): Work with PDFs",
      "Current date: 2026-11-30",
      "Current working directory: /p/x",
    ].map((part) => prompt.indexOf(part));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(prompt).not.toContain("## /p/AGENTS.md");
  });

  test("SYSTEM.md replaces the default prompt and tool list; APPEND_SYSTEM.md is added", () => {
    const prompt = buildSystemPrompt({
      ...base,
      files: { system: { path: "/S", content: "Custom base" }, append: { path: "/A", content: "Extra" } },
    });
    expect(prompt.startsWith("Custom base\n\nExtra")).toBe(true);
    expect(prompt).not.toContain("You are KnightCode.");
    expect(prompt).toContain("nearest rules");
  });
});
