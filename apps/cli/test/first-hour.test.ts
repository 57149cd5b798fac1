/**
 * The terminal as a new user meets it, in a real pseudo-terminal against the mock model:
 * no session for a launch that got no input, the first screen and `/help`, unknown
 * commands answered locally, a broken models.json that does not trap, signals that shut
 * down in order, and a resume picker that tells sessions apart.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mockModelsJson, textReply } from "@knightcode/testkit";
import { version } from "../package.json" with { type: "json" };
import { mockedAgent, requestText, runCli } from "./support/cli-run.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

/** Every file below `dir` whose name ends with `suffix`, as paths relative to it. */
function filesEnding(dir: string, suffix: string): string[] {
  return [...new Bun.Glob(`**/*${suffix}`).scanSync({ cwd: dir, dot: true })];
}

describe("the first hour in the terminal", () => {
  test("Ctrl+D right after launch leaves no session, and -c reopens the last real one", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("noted the zebra"));
    expect((await runCli(["-p", "remember zebra"], { cwd: env.agent.cwd, env: env.env })).code).toBe(0);
    const sessions = join(env.agent.agentDir, "sessions");
    expect(filesEnding(sessions, ".jsonl").length).toBe(1);
    {
      await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
      await tty.waitFor("mock-completions/mock-model");
      tty.write(KEYS.ctrlD);
      expect(await tty.exited).toBe(0);
    }
    expect(filesEnding(sessions, ".jsonl").length).toBe(1);
    expect(filesEnding(sessions, ".lock")).toEqual([]);
    await using tty = new PtySession(["-c"], { cwd: env.agent.cwd, env: env.env });
    const screen = await tty.waitFor("noted the zebra");
    expect(screen).toContain("› remember zebra");
  }, 40_000);

  test("a named session and one that ran a !command are kept", async () => {
    await using env = await mockedAgent();
    const sessions = join(env.agent.agentDir, "sessions");
    for (const input of ["/name kept one", "!echo used"]) {
      await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
      await tty.waitFor("mock-completions/mock-model");
      tty.type(input);
      await tty.waitFor(input.startsWith("!") ? /^used\s*$/m : "kept one");
      tty.write(KEYS.ctrlD);
      expect(await tty.exited).toBe(0);
    }
    expect(filesEnding(sessions, ".jsonl").length).toBe(2);
    expect(env.mock.requests.length).toBe(0);
  }, 40_000);

  test("the first screen names the version, model, cwd, what loaded and the keys; quietStartup hides it", async () => {
    await using env = await mockedAgent();
    writeFileSync(join(env.agent.cwd, "AGENTS.md"), "Be brief.\n");
    mkdirSync(join(env.agent.agentDir, "prompts"));
    writeFileSync(
      join(env.agent.agentDir, "prompts", "review.md"),
      "---\ndescription: Review the diff\n---\nReview.\n",
    );
    {
      await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env, cols: 140 });
      const screen = await tty.waitFor("prompts: /review");
      expect(screen).toMatch(/knightcode \d+\.\d+\.\d+ · mock-completions\/mock-model · \S+project/);
      expect(screen).toContain("context: AGENTS.md");
      expect(screen).toContain(
        "Enter send · Alt+Enter queue · Esc interrupt · Ctrl+O expand · / commands · @ files · ! shell",
      );
    }
    const settingsPath = join(env.agent.agentDir, "settings.json");
    writeFileSync(
      settingsPath,
      JSON.stringify({ ...JSON.parse(readFileSync(settingsPath, "utf8")), quietStartup: true }),
    );
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env, cols: 140 });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/usage");
    const screen = await tty.waitFor("Usage");
    expect(screen).not.toContain("Enter send");
    // not even briefly: the header is drawn only once the setting is known
    expect(tty.raw).not.toContain("Enter");
    expect(tty.raw).not.toContain(`knightcode ${version}`);
  }, 40_000);

  test("the first frame draws the editor and footer before the header, which follows once settings are read", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env, cols: 140 });
    await tty.waitFor("Enter send");
    // Read from the bytes written, not a screen: both frames can arrive in one read. The first
    // frame's editor border is written before any of the header.
    const header = tty.raw.indexOf(`knightcode ${version}`);
    expect(header).toBeGreaterThan(-1);
    expect(tty.raw.indexOf("─")).toBeGreaterThan(-1);
    expect(tty.raw.indexOf("─")).toBeLessThan(header);
  }, 40_000);

  test("/help lists every command with a description, an unknown /word is answered locally, //text sends a slash", async () => {
    await using env = await mockedAgent();
    mkdirSync(join(env.agent.agentDir, "prompts"));
    writeFileSync(
      join(env.agent.agentDir, "prompts", "review.md"),
      "---\ndescription: Review the diff\n---\nReview.\n",
    );
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env, cols: 120, rows: 60 });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/help");
    const help = await tty.waitFor("Prompt templates");
    expect(help).toMatch(/\/undo\s+Restore the files the last turn changed/);
    expect(help).toMatch(/\/compact\s+Summarize/);
    expect(help).toMatch(/\/review\s+Review the diff/);
    tty.type("/frobnicate now");
    await tty.waitFor("Unknown command /frobnicate; /help lists them");
    expect(env.mock.requests.length).toBe(0);
    env.mock.enqueue(textReply("a path, then"));
    tty.type("//etc/hosts is what?");
    await tty.waitFor("a path, then");
    const sent = requestText(env.mock.requests[0]!.body);
    expect(sent).toContain("/etc/hosts is what?");
    expect(sent).not.toContain("//etc");
  }, 40_000);

  test("a broken models.json is shown with its path; after the file is fixed the next Enter runs the turn", async () => {
    await using env = await mockedAgent();
    const modelsPath = join(env.agent.agentDir, "models.json");
    writeFileSync(modelsPath, "{ not json");
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env, cols: 160 });
    const screen = await tty.waitFor("not valid JSON");
    expect(screen).toContain(modelsPath);
    tty.type("hello after the fix");
    await tty.waitFor("✗ No model:");
    expect(env.mock.requests.length).toBe(0);
    expect(tty.text()).not.toContain("try again in a moment");
    writeFileSync(modelsPath, JSON.stringify(mockModelsJson(env.mock)));
    env.mock.enqueue(textReply("the model is back"));
    // the text stayed in the editor: Enter sends it now
    tty.write(KEYS.enter);
    await tty.waitFor("the model is back");
    expect(requestText(env.mock.requests[0]!.body)).toContain("hello after the fix");
  }, 40_000);

  test("SIGHUP shuts down as stdin EOF does: the session is saved and no lock is left", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("answered before the hangup"));
    const sessions = join(env.agent.agentDir, "sessions");
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("say something");
    await tty.waitFor("answered before the hangup");
    expect(filesEnding(sessions, ".lock").length).toBe(1);
    process.kill(tty.pid, "SIGHUP");
    expect(await tty.exited).toBe(129);
    expect(filesEnding(sessions, ".lock")).toEqual([]);
    const [file] = filesEnding(sessions, ".jsonl");
    expect(readFileSync(join(sessions, file!), "utf8")).toContain("answered before the hangup");
  }, 40_000);

  test("/resume tells apart sessions started in the same second: distinct IDs, whole titles, message counts", async () => {
    await using env = await mockedAgent();
    const titles = ["first of three in one second", "second of three in one second", "third of three"];
    // three -p runs at once: their IDs share the time prefix
    for (const title of titles) env.mock.enqueue(textReply(`ok: ${title}`));
    const runs = await Promise.all(
      titles.map((t) => runCli(["-p", t], { cwd: env.agent.cwd, env: env.env })),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    const ids = filesEnding(join(env.agent.agentDir, "sessions"), ".jsonl").map((f) =>
      f.slice(f.lastIndexOf("_") + 1, -".jsonl".length),
    );
    expect(ids.length).toBe(3);
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env, cols: 120 });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/resume");
    const picker = await tty.waitFor((s) => titles.every((t) => s.includes(t)));
    const shown = ids.map((id) => id.replace(/-/g, "").slice(-8));
    expect(new Set(shown).size).toBe(3);
    for (const part of shown) expect(picker).toContain(part);
    expect(picker).toMatch(/2 msgs\s+second of three in one second/);
    // searching by the distinguishing part of an ID finds that session only
    const wanted = ids[1]!.replace(/-/g, "").slice(-8);
    tty.write(wanted);
    await tty.waitFor(`Search: ${wanted}`);
    tty.write(KEYS.enter);
    await tty.waitFor((s) => titles.some((t) => s.includes(`ok: ${t}`)));
  }, 40_000);
});
