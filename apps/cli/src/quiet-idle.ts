/**
 * The interactive terminal spends most of its life waiting for the user, and while it
 * waits it should cost nothing. Bun's runtime wakes it anyway: an idle garbage-collection
 * timer fires every second (every 30 s once the heap has been quiet for half a minute),
 * about 20–30 ms of CPU per idle 10 s and one wakeup a second. That timer is only read
 * from the environment the process starts with (`BUN_GC_TIMER_DISABLE`), so the
 * interactive command replaces itself, before it has drawn anything, with a copy started
 * with it set: execve keeps the pid, the terminal and every descriptor. JavaScriptCore's
 * own allocation-paced collector still runs whenever the agent works, so memory is still
 * reclaimed; only the collection on a clock is gone.
 *
 * A user who sets `BUN_GC_TIMER_DISABLE` (any value, `0` included) is left alone.
 */
import { fstatSync } from "node:fs";
import type { Command } from "./args.ts";
import { selfInvocation } from "./self-command.ts";

/** Set beside the variable in the copy, so it knows the variable is ours to remove. */
const MARKER = "KNIGHTCODE_QUIET_IDLE";

/**
 * Called once at start-up. The restarted copy removes the variable again: the runtime has
 * already read it, and shells, tools and MCP servers this process starts must not inherit
 * a runtime setting meant for it alone. Otherwise an interactive terminal restarts itself.
 */
export function quietIdleTerminal(command: Command): void {
  if (process.env[MARKER] === "1") {
    delete process.env[MARKER];
    delete process.env.BUN_GC_TIMER_DISABLE;
    return;
  }
  if (isInteractiveTerminal(command, stdinMayBeTerminal())) restartWithoutIdleGcTimer();
}

/**
 * Whether stdin is a character device, which every terminal is. Asking
 * `process.stdin.isTTY` (or loading `node:tty`) builds Node's stdin machinery, about
 * 8 ms, in the process that is about to be replaced; fstat costs next to nothing. A
 * character device that is not a terminal (`< /dev/null`) only costs a needless restart:
 * the restarted copy asks `isTTY` itself before it picks the interactive UI.
 */
function stdinMayBeTerminal(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return false;
  }
}

/** Whether `command` is the long-lived, mostly idle interactive terminal. */
export function isInteractiveTerminal(command: Command, stdinIsTTY: boolean): boolean {
  return command.kind === "agent" && !command.options.print && stdinIsTTY;
}

/**
 * Replaces this process with a copy that has Bun's idle GC timer off. Returns only when
 * it cannot (no execve on this platform, or it failed): the terminal then works as
 * before, at the cost of the idle wakeups.
 */
function restartWithoutIdleGcTimer(): void {
  if (process.env.BUN_GC_TIMER_DISABLE !== undefined) return;
  if (typeof process.execve !== "function" || process.platform === "win32") return;
  const argv = selfInvocation();
  try {
    process.execve(argv[0]!, argv, {
      ...process.env,
      BUN_GC_TIMER_DISABLE: "1",
      [MARKER]: "1",
    });
  } catch {
    // keep running with the timer on
  }
}
