import { describe, expect, test } from "bun:test";
import { Header } from "../src/interactive/header.ts";

const plain = (lines: string[]) => lines.map((line) => line.replace(/\u001b\[[0-9;]*m/g, ""));

describe("the first screen's header", () => {
  test("before the thread opens: version, cwd and the keys", () => {
    const lines = plain(new Header("1.2.3", "/work/project").render(200));
    expect(lines[0]).toBe("knightcode 1.2.3 · /work/project");
    expect(lines[1]).toContain("Enter send · Alt+Enter queue");
    expect(lines.at(-1)).toBe("");
  });

  test("once open: the model, context files below the cwd relative to it, skills, templates and extensions by name", () => {
    const header = new Header("1.2.3", "/work/project");
    header.thread = {
      id: "t",
      cwd: "/work/project",
      createdAt: "",
      updatedAt: "",
      archived: false,
      status: { type: "idle" },
      model: { provider: "p", id: "m" },
    };
    header.resources = {
      contextFiles: ["/work/project/AGENTS.md", "/etc/AGENTS.md"],
      extensions: ["/x/plan.ts"],
    };
    header.commands = [
      { name: "compact", description: "", source: "builtin" },
      { name: "skill:pdf", description: "", source: "skill" },
      { name: "review", description: "", source: "template" },
    ];
    const lines = plain(header.render(200));
    expect(lines[0]).toBe("knightcode 1.2.3 · p/m · /work/project");
    expect(lines[1]).toBe(
      "context: AGENTS.md, /etc/AGENTS.md · skills: pdf · prompts: /review · extensions: plan.ts",
    );
  });

  test("every line fits the width, and a hidden header draws nothing", () => {
    const header = new Header("1.2.3", "/a/very/long/path/to/some/project/folder");
    for (const line of plain(header.render(30))) expect(line.length).toBeLessThanOrEqual(30);
    header.hidden = true;
    expect(header.render(80)).toEqual([]);
  });
});
