import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { discoverResources } from "../src/index.ts";
import { fifo, put } from "./support/files.ts";

const skill = (name: string, description = "does things") =>
  `---\nname: ${name}\ndescription: ${description}\n---\nBody\n`;

describe("resource discovery", () => {
  test("finds each kind in the agent dir", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "extensions/single.ts", "export default () => {};");
    await put(dir.agentDir, "extensions/folder/index.js", "export default () => {};");
    await put(dir.agentDir, "extensions/README.md", "not code");
    await put(dir.agentDir, "extensions/types.d.ts", "export {};");
    await put(dir.agentDir, "skills/pdf/SKILL.md", skill("pdf", "Work with PDFs"));
    await put(dir.agentDir, "skills/group/nested/SKILL.md", skill("nested"));
    await put(
      dir.agentDir,
      "prompts/review.md",
      "---\ndescription: Review the diff\n---\nReview $ARGUMENTS\n",
    );
    await put(dir.agentDir, "prompts/fix.md", "\n# Fix the failing test\nthen run it\n");
    await put(dir.agentDir, "themes/night.json", { name: "Night", colors: {} });
    await put(dir.agentDir, "themes/plain.json", { colors: {} });
    const found = await discoverResources({
      agentDir: dir.agentDir,
      trusted: false,
      globalSettings: null,
      projectSettings: null,
    });
    expect(found.warnings).toEqual([]);
    expect(found.extensions.map((e) => e.path)).toEqual([
      join(dir.agentDir, "extensions/folder/index.js"),
      join(dir.agentDir, "extensions/single.ts"),
    ]);
    expect(found.skills.map((s) => [s.name, s.description, s.baseDir])).toEqual([
      ["nested", "does things", join(dir.agentDir, "skills/group/nested")],
      ["pdf", "Work with PDFs", join(dir.agentDir, "skills/pdf")],
    ]);
    expect(found.prompts.map((p) => [p.name, p.description, p.content])).toEqual([
      ["fix", "Fix the failing test", "\n# Fix the failing test\nthen run it\n"],
      ["review", "Review the diff", "Review $ARGUMENTS\n"],
    ]);
    expect(found.themes.map((t) => t.name)).toEqual(["Night", "plain"]);
  });

  test("each refused load is a warning", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "skills/nodesc/SKILL.md", "---\nname: nodesc\n---\n");
    await put(dir.agentDir, "skills/noname/SKILL.md", "---\ndescription: x\n---\n");
    await put(dir.agentDir, "skills/badyaml/SKILL.md", "---\nname: [x\n---\n");
    await put(dir.agentDir, "themes/broken.json", '{\n "a": }');
    await put(dir.agentDir, "notes.txt", "x");
    const found = await discoverResources({
      agentDir: dir.agentDir,
      trusted: false,
      globalSettings: { extensions: ["./missing.ts", "./notes.txt"], prompts: ["./nope"] },
      projectSettings: null,
    });
    expect(found.skills).toEqual([]);
    expect(found.themes).toEqual([]);
    const byPath = Object.fromEntries(found.warnings.map((w) => [w.path, w]));
    expect(byPath[join(dir.agentDir, "skills/nodesc/SKILL.md")]?.message).toContain("no description");
    expect(byPath[join(dir.agentDir, "skills/noname/SKILL.md")]?.message).toContain("no name");
    expect(byPath[join(dir.agentDir, "skills/badyaml/SKILL.md")]?.message).toContain("frontmatter");
    expect(byPath[join(dir.agentDir, "themes/broken.json")]).toMatchObject({ source: "settings", line: 2 });
    expect(byPath[join(dir.agentDir, "missing.ts")]).toMatchObject({ source: "extension" });
    expect(byPath[join(dir.agentDir, "notes.txt")]?.message).toContain("not a .ts");
    expect(byPath[join(dir.agentDir, "nope")]).toMatchObject({ source: "settings" });
    expect(found.warnings).toHaveLength(7);
  });

  test("settings paths resolve against their settings file's folder; local packages contribute", async () => {
    await using dir = await tempAgentDir();
    await put(dir.root, "shared/ext.ts", "export default () => {};");
    await put(dir.root, "pkg/skills/pk/SKILL.md", skill("pk"));
    await put(dir.root, "pkg/prompts/hello.md", "Say hello");
    await put(dir.cwd, ".knightcode/local-prompts/deploy.md", "Deploy it");
    const found = await discoverResources({
      agentDir: dir.agentDir,
      cwd: dir.cwd,
      trusted: true,
      globalSettings: { extensions: ["../shared/ext.ts"], packages: ["../pkg", "npm:remote-thing"] },
      projectSettings: { prompts: ["local-prompts"] },
    });
    expect(found.warnings).toEqual([]);
    expect(found.extensions.map((e) => [e.path, e.origin])).toEqual([
      [join(dir.root, "shared/ext.ts"), "settings"],
    ]);
    expect(found.skills.map((s) => [s.name, s.origin])).toEqual([["pk", "package"]]);
    expect(found.prompts.map((p) => [p.name, p.origin])).toEqual([
      ["deploy", "settings"],
      ["hello", "package"],
    ]);
  });

  test("project resources load only when trusted and come before the agent dir's", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "prompts/review.md", "agent review");
    await put(dir.cwd, ".knightcode/prompts/review.md", "project review");
    await put(dir.cwd, ".knightcode/extensions/p.ts", "export default () => {};");
    const options = { agentDir: dir.agentDir, cwd: dir.cwd, globalSettings: null, projectSettings: null };
    const untrusted = await discoverResources({ ...options, trusted: false });
    expect(untrusted.prompts.map((p) => p.content)).toEqual(["agent review"]);
    expect(untrusted.extensions).toEqual([]);
    const trusted = await discoverResources({ ...options, trusted: true });
    expect(trusted.prompts.map((p) => [p.content, p.origin])).toEqual([["project review", "project"]]);
    expect(trusted.extensions.map((e) => e.origin)).toEqual(["project"]);
    expect(trusted.warnings).toEqual([
      expect.objectContaining({ path: join(dir.agentDir, "prompts/review.md"), source: "settings" }),
    ]);
  });

  test("the same file reached twice is listed once", async () => {
    await using dir = await tempAgentDir();
    await put(dir.agentDir, "extensions/a.ts", "export default () => {};");
    const found = await discoverResources({
      agentDir: dir.agentDir,
      trusted: false,
      globalSettings: { extensions: ["extensions/a.ts", "extensions"] },
      projectSettings: null,
    });
    expect(found.extensions).toHaveLength(1);
    expect(found.warnings).toEqual([]);
  });
});

describe("themes from disk", () => {
  test("a __proto__ key in a theme file is dropped with a warning", async () => {
    await using dir = await tempAgentDir();
    const path = await put(dir.agentDir, "themes/t.json", '{"name": "t", "__proto__": {"polluted": true}}');
    const found = await discoverResources({
      agentDir: dir.agentDir,
      trusted: false,
      globalSettings: null,
      projectSettings: null,
    });
    expect(found.themes.map((t) => t.theme)).toEqual([{ name: "t" }]);
    expect(Object.getPrototypeOf(found.themes[0]!.theme)).toBe(Object.prototype);
    expect(found.warnings).toEqual([expect.objectContaining({ source: "settings", path })]);
  });
});

describe("irregular files", () => {
  test("an explicit FIFO path is refused with a warning; FIFOs in folders are skipped unread", async () => {
    await using dir = await tempAgentDir();
    const pipe = await fifo(dir.root, "pipe.md");
    await fifo(dir.agentDir, "prompts/hang.md");
    await put(dir.agentDir, "prompts/ok.md", "Fine prompt");
    const found = await discoverResources({
      agentDir: dir.agentDir,
      trusted: false,
      globalSettings: { prompts: [pipe], extensions: [pipe] },
      projectSettings: null,
    });
    expect(found.prompts.map((p) => p.name)).toEqual(["ok"]);
    expect(found.extensions).toEqual([]);
    expect(found.warnings.map((w) => [w.source, w.path])).toEqual([
      ["extension", pipe],
      ["settings", pipe],
    ]);
  });
});
