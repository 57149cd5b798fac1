import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { tempAgentDir } from "../src/index.ts";

test("tempAgentDir seeds the files, exposes env, and removes everything on dispose", async () => {
  let root = "";
  {
    await using dir = await tempAgentDir({
      models: { providers: {} },
      auth: { openai: "k" },
      settings: "{}\n",
    });
    root = dir.root;
    expect(dir.env.KNIGHTCODE_CODING_AGENT_DIR).toBe(dir.agentDir);
    expect(JSON.parse(await readFile(dir.modelsJsonPath, "utf8"))).toEqual({ providers: {} });
    expect(await readFile(dir.settingsJsonPath, "utf8")).toBe("{}\n");
    expect((await stat(dir.authJsonPath)).mode & 0o777).toBe(0o600);
    expect((await stat(dir.cwd)).isDirectory()).toBe(true);
    const nested = await dir.write("sessions/x/y.json", { a: 1 });
    expect(JSON.parse(await readFile(nested, "utf8"))).toEqual({ a: 1 });
  }
  expect(existsSync(root)).toBe(false);
});

test("tempAgentDir without options writes no files", async () => {
  await using dir = await tempAgentDir();
  expect(existsSync(dir.modelsJsonPath)).toBe(false);
  expect(existsSync(dir.authJsonPath)).toBe(false);
});
