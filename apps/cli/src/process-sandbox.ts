/**
 * `knightcode --sandbox=process`: the whole KnightCode process re-executed inside
 * bubblewrap — the local equivalent of running it in a container. Writable inside: the
 * project (the cwd) and a private agent dir (`~/.knightcode/process-sandbox/agent`, kept
 * between runs, never the real one); the rest of the system is read-only, the home is an
 * empty tmpfs, /tmp is private, and PIDs, IPC and hostname are the sandbox's own. The
 * network stays on (the model is reached through it). Environment variables pass in as
 * they are, as with `docker run -e`: the server needs its provider key.
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { selfCommand, selfRuntimePaths } from "./self-command.ts";

/** Set inside the re-executed process. */
const INSIDE = "KNIGHTCODE_PROCESS_SANDBOX";

/** Whether this process is the one re-executed inside the process sandbox. */
export function insideProcessSandbox(): boolean {
  return process.env[INSIDE] === "1";
}

/** The private agent dir the sandboxed process uses. */
export function processSandboxAgentDir(home: string): string {
  return join(home, ".knightcode", "process-sandbox", "agent");
}

/** The bubblewrap arguments that re-run `argv` inside the sandbox. */
export function processSandboxArgs(options: {
  cwd: string;
  home: string;
  agentDir: string;
  /** Read-only extras: the runtime and KnightCode's own sources. */
  runtime: string[];
  /** The command that runs inside: this program again (self-command.ts) with the user's arguments. */
  command: readonly string[];
}): string[] {
  return [
    "--die-with-parent",
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--hostname",
    "knightcode-sandbox",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--tmpfs",
    options.home,
    ...options.runtime.flatMap((path) => ["--ro-bind-try", path, path]),
    "--bind",
    options.agentDir,
    options.agentDir,
    "--bind",
    options.cwd,
    options.cwd,
    "--setenv",
    INSIDE,
    "1",
    "--setenv",
    "KNIGHTCODE_CODING_AGENT_DIR",
    options.agentDir,
    "--chdir",
    options.cwd,
    "--",
    ...options.command,
  ];
}

/** Re-runs this command inside the process sandbox and returns its exit code. */
export async function runInProcessSandbox(args: readonly string[]): Promise<number> {
  // loaded here, not at the top: lazy-host imports this file on every server start, and
  // @knightcode/sandbox brings the agent's tools (and TypeBox) with it
  const { requireBubblewrap, SandboxUnavailableError } = await import("@knightcode/sandbox");
  let bwrap: string;
  try {
    bwrap = await requireBubblewrap(process.env.PATH ?? "");
  } catch (error) {
    if (!(error instanceof SandboxUnavailableError)) throw error;
    process.stderr.write(`knightcode: --sandbox=process: ${error.message}\n`);
    return 1;
  }
  const home = process.env.HOME ?? homedir();
  const agentDir = process.env.KNIGHTCODE_PROCESS_SANDBOX_AGENT_DIR ?? processSandboxAgentDir(home);
  mkdirSync(agentDir, { recursive: true });
  const child = Bun.spawn(
    [
      bwrap,
      ...processSandboxArgs({
        cwd: process.cwd(),
        home,
        agentDir,
        runtime: selfRuntimePaths(),
        command: [...selfCommand(), ...args],
      }),
    ],
    { stdin: "inherit", stdout: "inherit", stderr: "inherit", env: process.env },
  );
  // The terminal's signals reach both; the child decides how to end.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
  return await child.exited;
}
