/**
 * Broken configuration files do not trap the terminal: a malformed auth.json or
 * settings.json is shown with its path and parse error while the session opens with
 * what is usable, and the next Enter after the fix picks the file up; a resumed thread
 * (`-c`) warns about a broken models.json as a new one does.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mockModelsJson, textReply } from "@knightcode/testkit";
import { mockedAgent, requestText, runCli } from "./support/cli-run.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

describe("broken configuration files in the terminal", () => {
  test("a malformed auth.json is a warning with its path; the models.json server still answers", async () => {
    await using env = await mockedAgent();
    const authPath = join(env.agent.agentDir, "auth.json");
    writeFileSync(authPath, "{ broken", { mode: 0o600 });
    env.mock.enqueue(textReply("answered despite auth.json"));
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env, cols: 160 });
    const screen = await tty.waitFor(authPath);
    expect(screen).toMatch(/JSON Parse error|Unexpected|not valid JSON/i);
    await tty.waitFor("mock-completions/mock-model");
    tty.type("still usable?");
    await tty.waitFor("answered despite auth.json");
    expect(tty.text()).not.toContain("try again in a moment");
  }, 40_000);

  test("a malformed auth.json without models.json opens on the offline demo model", async () => {
    await using env = await mockedAgent();
    writeFileSync(join(env.agent.agentDir, "models.json"), JSON.stringify({ providers: {} }));
    writeFileSync(join(env.agent.agentDir, "settings.json"), "{}");
    const authPath = join(env.agent.agentDir, "auth.json");
    writeFileSync(authPath, "[1,", { mode: 0o600 });
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env, cols: 160 });
    const screen = await tty.waitFor(authPath);
    expect(screen).toContain("JSON Parse error");
    await tty.waitFor("demo/demo");
    tty.type("are you there");
    await tty.waitFor('You said: "are you there"');
  }, 40_000);

  test("a malformed settings.json is a warning with its path and the terminal stays usable; after the fix Enter runs a turn", async () => {
    await using env = await mockedAgent();
    const settingsPath = join(env.agent.agentDir, "settings.json");
    const good = readFileSync(settingsPath, "utf8");
    writeFileSync(settingsPath, "{ not settings");
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env, cols: 160 });
    const screen = await tty.waitFor(settingsPath);
    expect(screen).toMatch(/JSON|parse/i);
    expect(tty.text()).not.toContain("try again in a moment");
    writeFileSync(settingsPath, good);
    env.mock.enqueue(textReply("settings are back"));
    tty.type("hello after the settings fix");
    await tty.waitFor("settings are back");
    expect(requestText(env.mock.requests[0]!.body)).toContain("hello after the settings fix");
  }, 40_000);

  test("-c with a broken models.json shows the same warning as a new thread", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("first answer"));
    expect((await runCli(["-p", "first question"], { cwd: env.agent.cwd, env: env.env })).code).toBe(0);
    const modelsPath = join(env.agent.agentDir, "models.json");
    writeFileSync(modelsPath, "{ not json");
    await using tty = new PtySession(["-c"], { cwd: env.agent.cwd, env: env.env, cols: 160 });
    await tty.waitFor("first answer");
    const screen = await tty.waitFor("not valid JSON");
    expect(screen).toContain(modelsPath);
    writeFileSync(modelsPath, JSON.stringify(mockModelsJson(env.mock)));
    env.mock.enqueue(textReply("continued after the fix"));
    tty.type("go on");
    await tty.waitFor("continued after the fix");
    tty.write(KEYS.ctrlD);
  }, 40_000);
});
