/**
 * `knightcode.exec`: runs a program (no shell) in the thread's cwd with its output
 * captured, never on the server's stdout, and with the server's environment minus
 * credentials (the same hygiene as tool processes).
 */
import { scrubCredentials } from "@knightcode/agent";
import type { ExecOptions, ExecResult } from "./api-types.ts";

export async function runExec(
  command: string,
  args: string[],
  options: ExecOptions & { cwd: string },
): Promise<ExecResult> {
  const child = Bun.spawn([command, ...args], {
    cwd: options.cwd,
    env: scrubCredentials(process.env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let killed = false;
  const kill = () => {
    killed = true;
    child.kill();
  };
  const timer = options.timeout !== undefined ? setTimeout(kill, options.timeout) : undefined;
  options.signal?.addEventListener("abort", kill, { once: true });
  try {
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    return { stdout, stderr, code, killed };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", kill);
  }
}
