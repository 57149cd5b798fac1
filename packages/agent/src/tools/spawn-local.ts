/**
 * Running one child process the way every tool backend does: its own process group
 * (killed as a whole on timeout or abort), streamed output, and a bounded wait for output
 * a background job keeps open. Node built-ins only, so the sandbox helper can load it
 * inside bubblewrap without the rest of the agent.
 */
/** One process to run. It always gets its own process group, killed as a whole. */
export interface SpawnRequest {
  file: string;
  args: readonly string[];
  cwd: string;
  /** Added to (not replacing) the backend's environment; credentials are removed from both. */
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** Kills the process group after this many milliseconds. */
  timeoutMs?: number;
  onStdout?(chunk: Uint8Array): void;
  onStderr?(chunk: Uint8Array): void;
}

/** How a process ended. `exitCode` is null when it was killed by a signal. */
export interface SpawnResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /**
   * True when the process exited but something it started (a background job) still held
   * its output open; the call stopped waiting, and later output from it is not captured.
   */
  outputDetached?: boolean;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    // A negative pid addresses the whole process group, so grandchildren die too.
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
}

// Pipes normally close with the process. When a background job inherited them, output
// is still read while it keeps arriving (quiet periods of at most EXIT_OUTPUT_GRACE_MS),
// for at most EXIT_OUTPUT_MAX_MS after the exit; then the call stops waiting.
const EXIT_OUTPUT_GRACE_MS = 200;
const EXIT_OUTPUT_MAX_MS = 2000;

/** Runs one process in its own process group with exactly `request.env` as its environment. */
export async function spawnLocal(request: SpawnRequest): Promise<SpawnResult> {
  // loaded on the first spawn, not with the agent: ~1 ms off every server start
  const { spawn: spawnChild } = await import("node:child_process");
  return new Promise((resolve, reject) => {
    if (request.signal?.aborted) {
      resolve({ exitCode: null, signal: null, timedOut: false, aborted: true });
      return;
    }
    const child = spawnChild(request.file, [...request.args], {
      cwd: request.cwd,
      env: request.env ?? {},
      // detached = setsid: the child leads a new process group we can kill as one.
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let forward = true;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      aborted = true;
      killGroup(child.pid);
    };
    request.signal?.addEventListener("abort", onAbort, { once: true });
    const timer =
      request.timeoutMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            killGroup(child.pid);
          }, request.timeoutMs)
        : undefined;
    let chunksSinceCheck = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      chunksSinceCheck++;
      if (forward) request.onStdout?.(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      chunksSinceCheck++;
      if (forward) request.onStderr?.(chunk);
    });
    const finish = (result: SpawnResult) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      request.signal?.removeEventListener("abort", onAbort);
      // Background children may outlive the leader; after a kill they belong to the call, so they go too.
      if (timedOut || aborted) killGroup(child.pid);
      resolve(result);
    };
    child.on("error", (error) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("exit", (exitCode, signal) => {
      // The command itself finished; its timeout no longer applies (nor kills a job it left running).
      if (timer) clearTimeout(timer);
      const exitedAt = Date.now();
      const detach = () => {
        // Keep draining (a writer to a closed pipe would die of SIGPIPE), but stop forwarding
        // and stop holding this process open for it.
        forward = false;
        child.stdout.resume();
        child.stderr.resume();
        (child.stdout as { unref?: () => void }).unref?.();
        (child.stderr as { unref?: () => void }).unref?.();
        child.unref();
        finish({ exitCode, signal, timedOut, aborted, outputDetached: true });
      };
      const arm = () => {
        chunksSinceCheck = 0;
        graceTimer = setTimeout(
          // setImmediate lets pending pipe reads run first, in case this process was too busy
          // to read while the timer ran; output still arriving re-arms the wait.
          () =>
            setImmediate(() => {
              if (settled) return;
              if (chunksSinceCheck > 0 && Date.now() - exitedAt < EXIT_OUTPUT_MAX_MS) arm();
              else detach();
            }),
          EXIT_OUTPUT_GRACE_MS,
        );
      };
      arm();
    });
    child.on("close", (exitCode, signal) => finish({ exitCode, signal, timedOut, aborted }));
  });
}
