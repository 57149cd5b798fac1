import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  collectOutput,
  knightcodeArgv,
  MOCK_MODEL_ID,
  MOCK_PROVIDERS,
  mockDefaultAgentDir,
  startMockModelServer,
  tempAgentDir,
  textReply,
  toolCallReply,
} from "@knightcode/testkit";

async function run(args: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn(knightcodeArgv(args), {
    env: { ...process.env, ...env, NO_COLOR: "1" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const { stdout, stderr, code } = await collectOutput(child);
  return { stdout, stderr, code };
}

/** The throwaway project directory the demo reports for its thread. */
function demoProject(stdout: string): string {
  const cwd = /→ thread \S+ in (\S+)/.exec(stdout)?.[1];
  if (cwd === undefined) throw new Error(`the demo named no project directory:\n${stdout}`);
  return cwd;
}

describe("knightcode binary", () => {
  // app-server's and acp's usage goes to stderr: server-usage.test.ts
  for (const args of [["--help"], ["-h"], ["-p", "--help"], ["-h", "app-server"]]) {
    test(`${args.join(" ")} prints usage on stdout and exits 0 without serving`, async () => {
      const { stdout, stderr, code } = await run(args);
      expect(code).toBe(0);
      expect(stderr).toBe("");
      expect(stdout).toContain(
        "knightcode app-server [--listen <url>] [-e <extension>]... [--session-dir <dir>]",
      );
      expect(stdout).toContain("knightcode web [--listen ws://IP:PORT] [--open]");
      for (const flag of [
        "-p, --print",
        "--mode text|json",
        "-c, --continue",
        "-r, --resume",
        "--session <id|path>",
        "--model <provider/id>",
        "--thinking <level>",
        "--approval-mode <mode>",
        "-e, --extension <path>",
        "--session-dir <dir>",
        "--no-session",
        "--version",
        "-h, --help",
      ]) {
        expect(stdout).toContain(flag);
      }
    });
  }

  test("--version prints the version from package.json on stdout and exits 0", async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dir, "..", "package.json"), "utf8"));
    const { stdout, stderr, code } = await run(["--version"]);
    expect({ stdout, stderr, code }).toEqual({ stdout: `knightcode ${version}\n`, stderr: "", code: 0 });
  });

  for (const [args, line] of [
    [["--frobnicate"], "knightcode: unknown option '--frobnicate' (see knightcode --help)\n"],
    [
      ["-p", "--thinking", "huge", "hi"],
      "knightcode: --thinking must be one of off, minimal, low, medium, high, xhigh, not 'huge' (see knightcode --help)\n",
    ],
  ] as const) {
    test(`${args.join(" ")}: one line on stderr, nothing on stdout, exit 2`, async () => {
      const { stdout, stderr, code } = await run([...args]);
      expect({ stdout, stderr, code }).toEqual({ stdout: "", stderr: line, code: 2 });
    });
  }

  test("demo runs a scripted conversation on the offline model: a streamed reply, a tool call, and a file write approved in ask mode", async () => {
    await using agent = await tempAgentDir();
    const env: Record<string, string> = { ...agent.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" };
    const { stdout, code } = await run(["demo"], env);
    const cwd = demoProject(stdout);
    try {
      expect(code).toBe(0);
      expect(stdout).toContain("ready in");
      expect(stdout).toContain("model demo/demo, approval mode ask");
      expect(stdout).toContain("agent › This is the offline demo model");
      expect(stdout).toContain("tool call ls");
      // the write needs an approval: tool, input and offered decisions, then the script's answer
      expect(stdout).toMatch(/\? approval requested: write \{"path":"demo-note\.txt","content":"[^"]+"\}/);
      expect(stdout).toMatch(/offered: accept(, \w+)* → the script answers accept/);
      expect(stdout).toContain("✓ write completed");
      expect(stdout).toContain(`file change: add ${join(cwd, "demo-note.txt")}`);
      expect(stdout).not.toContain("no approval was needed");
      expect(stdout.indexOf("approval requested: write")).toBeLessThan(stdout.indexOf("file change: add"));
      expect(existsSync(join(cwd, "demo-note.txt"))).toBe(true);
      expect(readFileSync(join(cwd, "demo-note.txt"), "utf8").length).toBeGreaterThan(0);
      expect(stdout).toContain("turn completed");
      expect(stdout).toContain("the server shut down with exit code 0");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);

  test("demo with a models.json uses that model, and accepts the approval its tool call needs", async () => {
    await using mock = await startMockModelServer();
    await using agent = await mockDefaultAgentDir(mock);
    mock.enqueue(
      textReply("I am the mock model.", 3),
      toolCallReply({ name: "bash", arguments: { command: "echo from-the-demo" } }),
      textReply("Listed and noted.", 2),
      toolCallReply({ name: "write", arguments: { path: "demo-note.txt", content: "from the mock\n" } }),
      textReply("Written.", 1),
    );
    const { stdout, code } = await run(["demo"], { ...agent.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" });
    const cwd = demoProject(stdout);
    expect(readFileSync(join(cwd, "demo-note.txt"), "utf8")).toBe("from the mock\n");
    rmSync(cwd, { recursive: true, force: true });
    expect(stdout).toContain("approval requested: write");
    expect(stdout).toContain("file change: add");
    expect(code).toBe(0);
    expect(stdout).toContain(`model ${MOCK_PROVIDERS.completions}/${MOCK_MODEL_ID}`);
    expect(stdout).toContain("agent › I am the mock model.");
    expect(stdout).toContain("approval requested: bash");
    expect(stdout).toContain("the script answers accept");
    expect(stdout).toContain("✓ bash completed");
    expect(stdout).toContain("agent › Listed and noted.");
    expect(stdout).not.toContain("no approval was needed");
  }, 60_000);
});
