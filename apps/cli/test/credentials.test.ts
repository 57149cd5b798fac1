import { describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { mockModelsJson, startMockModelServer, tempAgentDir, textReply } from "@knightcode/testkit";
import { mockedAgent, runCli } from "./support/cli-run.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

/** An agent dir whose only server is at a host that cannot resolve (`.invalid` never does). */
const unresolvable = () =>
  tempAgentDir({
    models: {
      providers: {
        nowhere: {
          baseUrl: "http://api.knightcode-test.invalid/v1",
          api: "openai-completions",
          apiKey: "k",
          models: [{ id: "m1" }],
        },
      },
    },
  });

describe("credentials and connection failures", () => {
  test("-p against a host that cannot be resolved says it retries, then exits 1 naming the failure", async () => {
    await using agent = await unresolvable();
    const run = await runCli(["-p", "hi"], { cwd: agent.cwd, env: agent.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("knightcode: retrying (1/1) in 2s…");
    expect(run.stderr).toContain("ENOTFOUND api.knightcode-test.invalid");
    expect(run.stderr).toContain("knightcode: the turn failed (network:");
    expect(run.stdout).toBe("");
  }, 30_000);

  test("an environment key does not replace the server models.json describes", async () => {
    await using mock = await startMockModelServer();
    await using agent = await tempAgentDir({ models: mockModelsJson(mock) });
    mock.enqueue(textReply("from the models.json server"));
    const run = await runCli(["-p", "hi"], {
      cwd: agent.cwd,
      env: { ...agent.env, OPENAI_API_KEY: "sk-unused" },
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("from the models.json server\n");
    expect(mock.requests.length).toBe(1);
  }, 30_000);

  test("a turn without credentials names auth.json's path, the variable and /login", async () => {
    await using agent = await tempAgentDir();
    const run = await runCli(["-p", "hi", "--model", "anthropic/claude-sonnet-4-5"], {
      cwd: agent.cwd,
      env: agent.env,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No API key for provider "anthropic"');
    expect(run.stderr).toContain(
      `To add a key for anthropic: /login anthropic (knightcode login anthropic from a shell) saves it in ${agent.authJsonPath}, or set ANTHROPIC_API_KEY in the environment.`,
    );
  }, 30_000);

  test("--help names the key variables, auth.json, models.json and the session folder", async () => {
    const run = await runCli(["--help"]);
    expect(run.code).toBe(0);
    for (const word of [
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "auth.json",
      "models.json",
      "sessions/",
      "knightcode login",
    ])
      expect(run.stdout).toContain(word);
  });

  test("knightcode login reads a piped key, saves it with mode 0600 and names the file; an unknown provider is a usage error", async () => {
    await using agent = await tempAgentDir();
    const run = await runCli(["login", "openai"], { cwd: agent.cwd, env: agent.env, stdin: "sk-piped\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`Saved the key for openai in ${agent.authJsonPath} (mode 0600).\n`);
    expect(statSync(agent.authJsonPath).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(agent.authJsonPath, "utf8"))).toEqual({
      openai: { type: "api_key", key: "sk-piped" },
    });
    const unknown = await runCli(["login", "nope"], { cwd: agent.cwd, env: agent.env, stdin: "x" });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown provider "nope"; login takes one of: anthropic, openai');
    const empty = await runCli(["login", "anthropic"], { cwd: agent.cwd, env: agent.env, stdin: "\n" });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("no key given; nothing saved");
    expect(Object.keys(JSON.parse(readFileSync(agent.authJsonPath, "utf8")))).toEqual(["openai"]);
  }, 30_000);

  test("knightcode login on a terminal hides the key as it is typed", async () => {
    await using agent = await tempAgentDir();
    await using tty = new PtySession(["login", "anthropic"], { cwd: agent.cwd, env: agent.env });
    await tty.waitFor("API key for anthropic (input hidden");
    tty.type("sk-secret-typed");
    expect(await tty.exited).toBe(0);
    const screen = await tty.waitFor("Saved the key for anthropic");
    expect(screen).not.toContain("sk-secret-typed");
    expect(JSON.parse(readFileSync(agent.authJsonPath, "utf8")).anthropic.key).toBe("sk-secret-typed");
  }, 30_000);
});

describe("credentials in the interactive terminal", () => {
  test("/login asks for the key hidden and writes auth.json with mode 0600, naming the file", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/login");
    await tty.waitFor("Save an API key for which provider?");
    tty.write("anthropic");
    await tty.waitFor(/→ anthropic/);
    tty.write(KEYS.enter);
    await tty.waitFor("API key for anthropic:");
    tty.type("sk-in-the-tui");
    const screen = await tty.waitFor("✓ Saved the key for anthropic");
    expect(screen).toContain(env.agent.authJsonPath);
    expect(screen).not.toContain("sk-in-the-tui");
    expect(statSync(env.agent.authJsonPath).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(env.agent.authJsonPath, "utf8")).anthropic).toEqual({
      type: "api_key",
      key: "sk-in-the-tui",
    });
    expect(env.mock.requests.length).toBe(0);
  }, 30_000);

  test("picking a model without credentials in /model says how to add them", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/model");
    await tty.waitFor("Which model?");
    tty.write("openai/gpt-4.1");
    await tty.waitFor(/→ openai\/gpt-4\.1/);
    tty.write(KEYS.enter);
    const screen = await tty.waitFor("has no credentials yet");
    expect(screen).toContain(`/login openai`);
    expect(screen).toContain(env.agent.authJsonPath);
    expect(screen).toContain("OPENAI_API_KEY");
  }, 30_000);

  test("a connection error shows a visible retrying line before the failure", async () => {
    await using agent = await unresolvable();
    await using tty = new PtySession([], { cwd: agent.cwd, env: agent.env });
    await tty.waitFor("nowhere/m1");
    tty.type("hello");
    await tty.waitFor("retrying (1/1) in 2s…");
    const screen = await tty.waitFor("Turn failed (network)");
    expect(screen).toContain("ENOTFOUND api.knightcode-test.invalid");
  }, 30_000);
});
