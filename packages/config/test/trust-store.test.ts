import { describe, expect, test } from "bun:test";
import { mkdir, readFile, stat, symlink } from "node:fs/promises";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { readProjectTrust, setProjectTrust } from "../src/index.ts";
import { fifo, put, rejection } from "./support/files.ts";

describe("project trust store", () => {
  test("undecided without .knightcode content needs no trust", async () => {
    await using dir = await tempAgentDir();
    expect(await readProjectTrust(dir.agentDir, dir.cwd)).toEqual({ trusted: null, needsTrust: false });
  });

  test.each([
    [".knightcode/settings.json", "{}"],
    [".knightcode/SYSTEM.md", "x"],
    [".knightcode/APPEND_SYSTEM.md", "x"],
    [".knightcode/extensions/a.ts", "export default () => {};"],
    [".knightcode/skills/s/SKILL.md", "---\nname: s\ndescription: d\n---\n"],
    [".knightcode/prompts/p.md", "hello"],
    [".knightcode/themes/t.json", "{}"],
  ])("needsTrust is true when %s would load", async (relative, content) => {
    await using dir = await tempAgentDir();
    await put(dir.cwd, relative, content);
    expect(await readProjectTrust(dir.agentDir, dir.cwd)).toEqual({ trusted: null, needsTrust: true });
  });

  test("a .knightcode folder with nothing loadable needs no trust", async () => {
    await using dir = await tempAgentDir();
    await put(dir.cwd, ".knightcode/notes.txt", "x");
    await put(dir.cwd, ".knightcode/skills/broken/SKILL.md", "no frontmatter");
    expect(await readProjectTrust(dir.agentDir, dir.cwd)).toEqual({ trusted: null, needsTrust: false });
  });

  test("a recorded decision clears needsTrust and is stored by real path", async () => {
    await using dir = await tempAgentDir();
    await put(dir.cwd, ".knightcode/settings.json", "{}");
    await setProjectTrust(dir.agentDir, dir.cwd, false);
    expect(await readProjectTrust(dir.agentDir, dir.cwd)).toEqual({ trusted: false, needsTrust: false });
    await setProjectTrust(dir.agentDir, dir.cwd, true);
    expect(await readProjectTrust(dir.agentDir, dir.cwd)).toEqual({ trusted: true, needsTrust: false });
    const store = JSON.parse(await readFile(join(dir.agentDir, "trusted-projects.json"), "utf8"));
    expect(store).toEqual({ [dir.cwd]: true });
    expect((await stat(join(dir.agentDir, "trusted-projects.json"))).mode & 0o777).toBe(0o600);
  });

  test("symlinked paths to one project share one decision", async () => {
    await using dir = await tempAgentDir();
    const link = join(dir.root, "alias");
    await symlink(dir.cwd, link);
    await setProjectTrust(dir.agentDir, link, true);
    expect((await readProjectTrust(dir.agentDir, dir.cwd)).trusted).toBe(true);
    await setProjectTrust(dir.agentDir, dir.cwd, false);
    expect((await readProjectTrust(dir.agentDir, link)).trusted).toBe(false);
  });

  test("set on a missing path or a file is invalidParams", async () => {
    await using dir = await tempAgentDir();
    expect(await rejection(setProjectTrust(dir.agentDir, join(dir.root, "nope"), true))).toMatchObject({
      code: "invalidParams",
      data: { reason: "notADirectory" },
    });
    const file = await put(dir.root, "file.txt", "x");
    expect(await rejection(setProjectTrust(dir.agentDir, file, true))).toMatchObject({
      code: "invalidParams",
    });
  });

  test("a corrupt store is refused, not overwritten, and read fails internal", async () => {
    await using dir = await tempAgentDir();
    const path = await put(dir.agentDir, "trusted-projects.json", "{corrupt");
    expect(await rejection(setProjectTrust(dir.agentDir, dir.cwd, true))).toMatchObject({ code: "internal" });
    expect(await readFile(path, "utf8")).toBe("{corrupt");
    expect(await rejection(readProjectTrust(dir.agentDir, dir.cwd))).toMatchObject({ code: "internal" });
  });

  test("an agent dir that cannot be created is internal", async () => {
    await using dir = await tempAgentDir();
    const fileAsDir = await put(dir.root, "agent-file", "x");
    expect(await rejection(setProjectTrust(fileAsDir, dir.cwd, true))).toMatchObject({ code: "internal" });
  });

  test("concurrent decisions for different projects all land", async () => {
    await using dir = await tempAgentDir();
    const projects = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        put(dir.root, `p${i}/.keep`, "").then(() => join(dir.root, `p${i}`)),
      ),
    );
    await Promise.all(projects.map((p, i) => setProjectTrust(dir.agentDir, p, i % 2 === 0)));
    for (const [i, p] of projects.entries()) {
      expect((await readProjectTrust(dir.agentDir, p)).trusted).toBe(i % 2 === 0);
    }
  });
});

describe("needsTrust on hostile project content", () => {
  test("FIFOs and device links in .knightcode/ are skipped, never read, so trust/read returns", async () => {
    await using dir = await tempAgentDir();
    await fifo(dir.cwd, ".knightcode/prompts/hang.md");
    await fifo(dir.cwd, ".knightcode/themes/hang.json");
    await mkdir(join(dir.cwd, ".knightcode", "skills", "zero"), { recursive: true });
    await symlink("/dev/zero", join(dir.cwd, ".knightcode", "skills", "zero", "SKILL.md"));
    expect(await readProjectTrust(dir.agentDir, dir.cwd)).toEqual({ trusted: null, needsTrust: false });
  });
});
