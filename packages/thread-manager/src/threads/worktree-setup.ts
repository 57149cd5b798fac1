/**
 * `worktree.setup`: a command from the source project's settings (trusted projects only:
 * an untrusted project's settings are never read) that prepares a new worktree, say
 * `bun install`. It runs in the worktree through the thread's own tool operations, so a
 * sandboxed thread's setup is sandboxed too, with `KNIGHTCODE_WORKTREE` (the worktree's
 * top level) and `KNIGHTCODE_SOURCE_TREE` (the checkout it was made from) set, and a
 * timeout (`worktree.setupTimeoutMs`, default five minutes). A failure is a warning of
 * the thread: the thread still works in its worktree, never silently in the main checkout.
 */
import type { ToolOperations } from "@knightcode/agent";
import { createLocalOperations } from "@knightcode/agent/operations";
import type { Warning } from "@knightcode/app-server-protocol";

export const DEFAULT_SETUP_TIMEOUT_MS = 300_000;
/** How much of the command's output a failure warning quotes. */
const OUTPUT_TAIL_CHARS = 2000;

export interface WorktreeSetup {
  command: string;
  timeoutMs: number;
}

/** The setup command of trusted project settings, if any. */
export function worktreeSetupOf(
  projectSettings: Record<string, unknown> | null,
  trusted: boolean,
): WorktreeSetup | undefined {
  if (!trusted || !projectSettings) return undefined;
  const section = projectSettings.worktree;
  if (typeof section !== "object" || section === null) return undefined;
  const { setup, setupTimeoutMs } = section as Record<string, unknown>;
  if (typeof setup !== "string" || setup.trim() === "") return undefined;
  const timeoutMs =
    typeof setupTimeoutMs === "number" && Number.isInteger(setupTimeoutMs) && setupTimeoutMs > 0
      ? setupTimeoutMs
      : DEFAULT_SETUP_TIMEOUT_MS;
  return { command: setup, timeoutMs };
}

/** Runs the setup command; undefined when it succeeded, else the warning to give. */
export async function runWorktreeSetup(
  setup: WorktreeSetup,
  where: { worktree: string; sourceTree: string },
  ops: ToolOperations | undefined,
): Promise<Warning | undefined> {
  const operations = ops ?? createLocalOperations();
  const shell = operations.shell();
  const decoder = new TextDecoder();
  let output = "";
  const keep = (chunk: Uint8Array) => {
    output = (output + decoder.decode(chunk, { stream: true })).slice(-OUTPUT_TAIL_CHARS);
  };
  try {
    const result = await operations.spawn({
      file: shell.file,
      args: [...shell.args, setup.command],
      cwd: where.worktree,
      env: { KNIGHTCODE_WORKTREE: where.worktree, KNIGHTCODE_SOURCE_TREE: where.sourceTree },
      timeoutMs: setup.timeoutMs,
      onStdout: keep,
      onStderr: keep,
    });
    if (result.exitCode === 0) return undefined;
    const how = result.timedOut
      ? `timed out after ${setup.timeoutMs} ms`
      : result.exitCode === null
        ? `was killed (${result.signal ?? "signal"})`
        : `exited with ${result.exitCode}`;
    return warning(`The worktree setup command ${how}`, output);
  } catch (error) {
    return warning(`The worktree setup command could not run: ${(error as Error).message}`, output);
  }
}

function warning(what: string, output: string): Warning {
  const tail = output.trim();
  return { source: "server", message: tail ? `${what}; its output ended with:\n${tail}` : what };
}
