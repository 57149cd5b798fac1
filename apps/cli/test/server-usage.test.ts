/**
 * `knightcode app-server` and `knightcode acp` on their command line: usage goes to
 * stderr (their stdout carries protocol messages only), a bad option is one line on
 * stderr with exit 2 and nothing on stdout, and an unknown long option is kept for the
 * extensions only when an extension that loads for every thread could take it. Both
 * streams are read on every case, against the sources and the binary alike.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setProjectTrust } from "@knightcode/config";
import { collectOutput, knightcodeArgv, type TempAgentDir, tempAgentDir } from "@knightcode/testkit";

/** An extension that registers nothing: enough to make a kept flag someone's possible flag. */
const INERT_EXTENSION = "export default function () {}\n";

/** Runs `knightcode <args>` to its end with stdin closed, in an empty agent dir. */
async function run(agent: TempAgentDir, args: string[], cwd = agent.cwd) {
  const child = Bun.spawn(knightcodeArgv(args), {
    cwd,
    env: { ...process.env, ...agent.env, NO_COLOR: "1" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  return collectOutput(child);
}

/** `knightcode <args>` in the agent's project with a stdin pipe the test writes. */
function spawnWithStdin(agent: TempAgentDir, args: string[]) {
  return Bun.spawn(knightcodeArgv(args), {
    cwd: agent.cwd,
    env: { ...process.env, ...agent.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** Starts `knightcode app-server <args>`, asks `initialize`, closes stdin; what came back. */
async function initializeOnce(agent: TempAgentDir, args: string[]) {
  const child = spawnWithStdin(agent, ["app-server", ...args]);
  child.stdin.write('{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}\n');
  child.stdin.end();
  const { stdout, stderr, code } = await collectOutput(child);
  const first = JSON.parse(stdout.split("\n")[0]!) as { id?: unknown; result?: unknown };
  return { answered: first.id === 1 && first.result !== undefined, stderr, code };
}

describe("app-server and acp usage", () => {
  for (const args of [
    ["app-server", "--help"],
    ["app-server", "-h"],
    ["app-server", "-e", "x.ts", "--lisen", "x", "-h"],
    ["acp", "--help"],
    ["acp", "-h"],
  ]) {
    test(`${args.join(" ")} prints usage on stderr, nothing on stdout, and exits 0`, async () => {
      await using agent = await tempAgentDir();
      const { stdout, stderr, code } = await run(agent, args);
      expect({ stdout, code }).toEqual({ stdout: "", code: 0 });
      expect(stderr).toContain("Usage:");
      expect(stderr).toContain("knightcode acp [-e <extension>]... [--session-dir <dir>]");
      expect(stderr).toContain("-h, --help");
    });
  }

  test("app-server -h with stdin left open and a request waiting exits 0 at once: no connection, no answer", async () => {
    await using agent = await tempAgentDir();
    const child = spawnWithStdin(agent, ["app-server", "-e", "x.ts", "-h"]);
    child.stdin.write('{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t"}}}\n');
    child.stdin.flush();
    // stdin stays open: a serving process would answer and then wait for more input
    const { stdout, stderr, code } = await collectOutput(child);
    child.stdin.end();
    expect({ stdout, code }).toEqual({ stdout: "", code: 0 });
    expect(stderr).toContain("Usage:");
    expect(stderr).not.toContain("shutting down");
  });

  for (const [args, message] of [
    [["app-server", "-x"], "unknown option '-x'"],
    [["app-server", "stray"], "unknown option 'stray'"],
    [["app-server", "--print"], "unknown option '--print'"],
    [["app-server", "--sandbox=tools"], "--sandbox takes no value or =process, not 'tools'"],
    [["app-server", "--session-dir"], "--session-dir needs a value"],
    [["acp", "-e"], "-e needs a value"],
    [["acp", "--model", "a/b"], "unknown option '--model'"],
    // no extension anywhere could register these: a mistyped server option
    [["app-server", "--lisen", "x"], "unknown option '--lisen'"],
    [["app-server", "--lisen=x"], "unknown option '--lisen'"],
    [["acp", "--plan"], "unknown option '--plan'"],
    [["web", "--opne"], "unknown option '--opne'"],
  ] as const) {
    test(`${args.join(" ")}: one line on stderr, nothing on stdout, exit 2`, async () => {
      await using agent = await tempAgentDir();
      const { stdout, stderr, code } = await run(agent, [...args]);
      expect({ stdout, stderr, code }).toEqual({
        stdout: "",
        stderr: `knightcode: ${message} (see knightcode --help)\n`,
        code: 2,
      });
    });
  }
});

describe("an unknown server flag is kept when an extension loaded for every thread could take it", () => {
  test("a -e path", async () => {
    await using agent = await tempAgentDir();
    const extension = join(agent.root, "inert.ts");
    writeFileSync(extension, INERT_EXTENSION);
    const { answered, code } = await initializeOnce(agent, ["-e", extension, "--lisen", "x"]);
    expect({ answered, code }).toEqual({ answered: true, code: 0 });
  });

  test("the global settings' extensions", async () => {
    await using agent = await tempAgentDir({ settings: { extensions: ["inert.ts"] } });
    writeFileSync(join(agent.agentDir, "inert.ts"), INERT_EXTENSION);
    const { answered, code } = await initializeOnce(agent, ["--plan"]);
    expect({ answered, code }).toEqual({ answered: true, code: 0 });
  });

  test("the agent dir's extensions folder", async () => {
    await using agent = await tempAgentDir();
    mkdirSync(join(agent.agentDir, "extensions"), { recursive: true });
    writeFileSync(join(agent.agentDir, "extensions", "inert.ts"), INERT_EXTENSION);
    const { answered, code } = await initializeOnce(agent, ["--plan"]);
    expect({ answered, code }).toEqual({ answered: true, code: 0 });
  });

  test("not a trusted project's own extensions: they load per thread, after the process took its flags", async () => {
    await using agent = await tempAgentDir();
    mkdirSync(join(agent.cwd, ".knightcode", "extensions"), { recursive: true });
    writeFileSync(join(agent.cwd, ".knightcode", "extensions", "inert.ts"), INERT_EXTENSION);
    await setProjectTrust(agent.agentDir, agent.cwd, true);
    const { stdout, stderr, code } = await run(agent, ["app-server", "--plan"]);
    expect({ stdout, stderr, code }).toEqual({
      stdout: "",
      stderr: "knightcode: unknown option '--plan' (see knightcode --help)\n",
      code: 2,
    });
  });
});
