import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { parseArgs } from "../src/args.ts";
import { isInteractiveTerminal } from "../src/quiet-idle.ts";
import { mockedAgent } from "./support/cli-run.ts";
import { PtySession } from "./support/pty-session.ts";

/** The environment the process was started with: what the runtime read at start-up (Linux). */
function startEnvironment(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return new Map(
    entries.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
  );
}

describe("the idle interactive terminal", () => {
  test("restarts itself with Bun's idle GC timer off, and its shell commands do not inherit the setting", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    expect(startEnvironment(tty.pid).get("BUN_GC_TIMER_DISABLE")).toBe("1");
    tty.type('!echo "gc=[$BUN_GC_TIMER_DISABLE] marker=[$KNIGHTCODE_QUIET_IDLE]"');
    await tty.waitFor(/^gc=\[\] marker=\[\]\s*$/m);
  }, 30_000);

  test("leaves a user's own BUN_GC_TIMER_DISABLE alone, and passes it on", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession([], {
      cwd: env.agent.cwd,
      env: { ...env.env, BUN_GC_TIMER_DISABLE: "0" },
    });
    await tty.waitFor("mock-completions/mock-model");
    expect(startEnvironment(tty.pid).get("BUN_GC_TIMER_DISABLE")).toBe("0");
    expect(startEnvironment(tty.pid).has("KNIGHTCODE_QUIET_IDLE")).toBe(false);
    tty.type('!echo "gc=[$BUN_GC_TIMER_DISABLE]"');
    await tty.waitFor(/^gc=\[0\]\s*$/m);
  }, 30_000);

  test("only the interactive terminal restarts: print mode, piped stdin and the servers keep the timer", () => {
    expect(isInteractiveTerminal(parseArgs([]), true)).toBe(true);
    expect(isInteractiveTerminal(parseArgs(["fix the bug"]), true)).toBe(true);
    expect(isInteractiveTerminal(parseArgs([]), false)).toBe(false);
    expect(isInteractiveTerminal(parseArgs(["-p", "hi"]), true)).toBe(false);
    expect(isInteractiveTerminal(parseArgs(["app-server"]), true)).toBe(false);
    expect(isInteractiveTerminal(parseArgs(["acp"]), true)).toBe(false);
    expect(isInteractiveTerminal(parseArgs(["--version"]), true)).toBe(false);
  });
});
