/**
 * Extension flags on the terminal agent's command line: kept aside by the parser, seen
 * by the extension through `getFlag` once the thread's extensions loaded, and a usage
 * error (one stderr line, exit 2, no session left) when no extension registers them.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { textReply } from "@knightcode/testkit";
import { settleExtensionFlags } from "../src/extension-flags.ts";
import { mockedAgent, runCli } from "./support/cli-run.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

const FIXTURE = join(import.meta.dir, "fixtures", "flags-extension.ts");

/** The system prompt and the user's text of one recorded Chat Completions request. */
function sent(body: unknown): { system: string; user: string } {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  const text = (role: string) =>
    messages
      .filter((m) => m.role === role)
      .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
      .join("\n");
  return { system: text("system"), user: text("user") };
}

function sessionFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
    .map((e) => join(e.parentPath, e.name));
}

describe("extension flags (knightcode -p)", () => {
  test("getFlag sees the passed values: a boolean flag, a string flag with its next word", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("ok"), textReply("ok"), textReply("ok"));
    const args = ["-p", "-e", FIXTURE];
    const flagged = await runCli([...args, "--shout", "--persona", "pirate", "hello there"], {
      cwd: env.agent.cwd,
      env: env.env,
    });
    expect(flagged).toEqual({ stdout: "ok\n", stderr: "", code: 0 });
    expect(sent(env.mock.requests[0]!.body).system).toContain("flags: shout=true persona=pirate");
    // the string flag took its word; the rest is the prompt
    expect(sent(env.mock.requests[0]!.body).user).toBe("hello there");

    // without the flags: the declared defaults
    await runCli([...args, "hello"], { cwd: env.agent.cwd, env: env.env });
    expect(sent(env.mock.requests[1]!.body).system).toContain("flags: shout=false persona=nobody");

    // =value, and a boolean flag leaves the word after it to the prompt
    await runCli([...args, "--persona=captain", "--shout", "ahoy"], { cwd: env.agent.cwd, env: env.env });
    expect(sent(env.mock.requests[2]!.body).system).toContain("flags: shout=true persona=captain");
    expect(sent(env.mock.requests[2]!.body).user).toBe("ahoy");
  }, 30_000);

  const refused: [string[], string][] = [
    [["--frobnicate", "hi"], "unknown option '--frobnicate'"],
    [["--frobnicate"], "unknown option '--frobnicate'"],
    [["hi", "--persona"], "--persona needs a value"],
    [["--shout=yes", "hi"], "--shout takes no value"],
  ];
  for (const [flags, message] of refused) {
    test(`${flags.join(" ")}: one line on stderr, exit 2, no model request, no session left`, async () => {
      await using env = await mockedAgent();
      const run = await runCli(["-p", "-e", FIXTURE, ...flags], { cwd: env.agent.cwd, env: env.env });
      expect(run).toEqual({
        stdout: "",
        stderr: `knightcode: ${message} (see knightcode --help)\n`,
        code: 2,
      });
      expect(env.mock.requests.length).toBe(0);
      expect(sessionFiles(env.agent.root)).toEqual([]);
    }, 30_000);
  }

  test("a prompt that was only a string flag's value: no prompt, exit 2, no session left", async () => {
    await using env = await mockedAgent();
    const run = await runCli(["-p", "-e", FIXTURE, "--persona", "pirate"], {
      cwd: env.agent.cwd,
      env: env.env,
    });
    expect(run).toEqual({
      stdout: "",
      stderr: "knightcode: print mode needs a prompt (an argument or piped stdin)\n",
      code: 2,
    });
    expect(env.mock.requests.length).toBe(0);
    expect(sessionFiles(env.agent.root)).toEqual([]);
  }, 30_000);

  test("without any extension an unknown flag is still a usage error", async () => {
    await using env = await mockedAgent();
    const run = await runCli(["-p", "--frobnicate=1", "hi"], { cwd: env.agent.cwd, env: env.env });
    expect(run).toEqual({
      stdout: "",
      stderr: "knightcode: unknown option '--frobnicate=1' (see knightcode --help)\n",
      code: 2,
    });
  }, 30_000);
});

describe("extension flags (interactive terminal)", () => {
  test("getFlag sees the flags; the word after the string flag is not the first message", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("Arr, hello."));
    await using tty = new PtySession(["-e", FIXTURE, "--persona", "pirate", "--shout", "hello"], {
      cwd: env.agent.cwd,
      env: env.env,
    });
    await tty.waitFor("Arr, hello.");
    expect(sent(env.mock.requests[0]!.body).system).toContain("flags: shout=true persona=pirate");
    expect(sent(env.mock.requests[0]!.body).user).toBe("hello");
    tty.write(KEYS.ctrlD);
    expect(await tty.exited).toBe(0);
  }, 30_000);

  test("a flag no extension registers: the UI closes, the usage line shows, exit 2", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession(["-e", FIXTURE, "--frobnicate"], { cwd: env.agent.cwd, env: env.env });
    // the line is below the closed UI (drawn inline, it stays in the scrollback)
    const screen = await tty.waitFor("knightcode: unknown option '--frobnicate' (see knightcode --help)");
    expect(
      screen.trimEnd().endsWith("knightcode: unknown option '--frobnicate' (see knightcode --help)"),
    ).toBe(true);
    expect(await tty.exited).toBe(2);
    expect(sessionFiles(env.agent.root)).toEqual([]);
  }, 30_000);
});

describe("settleExtensionFlags", () => {
  const registered = [
    { name: "plan", type: "boolean" as const, path: "/p.ts" },
    { name: "ssh", type: "string" as const, path: "/s.ts" },
  ];

  test("a word a string flag took leaves the prompt; a boolean flag's stays", () => {
    expect(
      settleExtensionFlags(
        {
          extensionFlags: [
            { name: "ssh", next: "me@host", nextWord: 0 },
            { name: "plan", next: "look", nextWord: 1 },
          ],
          promptWords: ["me@host", "look", "around"],
        },
        registered,
      ),
    ).toEqual({ prompt: "look around" });
    expect(
      settleExtensionFlags(
        { extensionFlags: [{ name: "ssh", next: "h", nextWord: 0 }], promptWords: ["h"] },
        registered,
      ),
    ).toEqual({ prompt: undefined });
  });

  test("the first bad flag is the error", () => {
    expect(
      settleExtensionFlags(
        { extensionFlags: [{ name: "plan" }, { name: "x" }, { name: "y" }], promptWords: [] },
        registered,
      ),
    ).toEqual({ error: "unknown option '--x'" });
    expect(settleExtensionFlags({ extensionFlags: [{ name: "plan" }], promptWords: [] }, undefined)).toEqual({
      error: "unknown option '--plan'",
    });
  });
});
