/**
 * `knightcode.exec`: runs a program (no shell) in the thread's cwd with its output
 * captured, never on the server's stdout. It goes through the thread's tool operations,
 * so it gets the same environment without credentials as the built-in tools, and runs
 * inside the thread's sandbox when there is one.
 */
import type { ToolOperations } from "@knightcode/agent";
import type { ExecOptions, ExecResult } from "./api-types.ts";

export async function runExec(
  ops: ToolOperations,
  command: string,
  args: string[],
  options: ExecOptions & { cwd: string },
): Promise<ExecResult> {
  const stdout: Uint8Array[] = [];
  const stderr: Uint8Array[] = [];
  const result = await ops.spawn({
    file: command,
    args,
    cwd: options.cwd,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeout !== undefined ? { timeoutMs: options.timeout } : {}),
    onStdout: (chunk) => stdout.push(chunk),
    onStderr: (chunk) => stderr.push(chunk),
  });
  const text = (chunks: Uint8Array[]) => Buffer.concat(chunks).toString("utf8");
  return {
    stdout: text(stdout),
    stderr: text(stderr),
    // A killed process has no exit code; 128 + signal number is what a shell would report.
    code: result.exitCode ?? 137,
    killed: result.timedOut || result.aborted,
  };
}
