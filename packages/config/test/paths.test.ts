import { describe, expect, test } from "bun:test";
import { homedir } from "node:os";
import { join } from "node:path";
import { agentPaths, expandPath, projectPaths, resolveAgentDir } from "../src/index.ts";

describe("agent dir resolution", () => {
  test("KNIGHTCODE_CODING_AGENT_DIR wins, with ~ expanded", () => {
    expect(resolveAgentDir({ KNIGHTCODE_CODING_AGENT_DIR: "/tmp/x/agent" })).toBe("/tmp/x/agent");
    expect(resolveAgentDir({ KNIGHTCODE_CODING_AGENT_DIR: "~/kc" })).toBe(join(homedir(), "kc"));
  });

  test("defaults to ~/.knightcode/agent when unset or blank", () => {
    expect(resolveAgentDir({})).toBe(join(homedir(), ".knightcode", "agent"));
    expect(resolveAgentDir({ KNIGHTCODE_CODING_AGENT_DIR: "  " })).toBe(
      join(homedir(), ".knightcode", "agent"),
    );
  });

  test("the agent dir file table", () => {
    const p = agentPaths("/a");
    expect(p).toMatchObject({
      settings: "/a/settings.json",
      keybindings: "/a/keybindings.json",
      models: "/a/models.json",
      auth: "/a/auth.json",
      tools: "/a/tools.json",
      systemPrompt: "/a/SYSTEM.md",
      appendSystemPrompt: "/a/APPEND_SYSTEM.md",
      extensions: "/a/extensions",
      skills: "/a/skills",
      prompts: "/a/prompts",
      themes: "/a/themes",
    });
  });

  test("the project .knightcode table", () => {
    expect(projectPaths("/p")).toEqual({
      dir: "/p/.knightcode",
      settings: "/p/.knightcode/settings.json",
      systemPrompt: "/p/.knightcode/SYSTEM.md",
      appendSystemPrompt: "/p/.knightcode/APPEND_SYSTEM.md",
      extensions: "/p/.knightcode/extensions",
      skills: "/p/.knightcode/skills",
      prompts: "/p/.knightcode/prompts",
      themes: "/p/.knightcode/themes",
    });
  });

  test("expandPath resolves relative paths against a base", () => {
    expect(expandPath("x/y", "/base")).toBe("/base/x/y");
    expect(expandPath("/abs/../z", "/base")).toBe("/z");
  });
});
