/**
 * The seam between the built-in tools and the machine they act on. The local backend
 * below uses this process's file system and child processes; a container or sandbox
 * backend implements the same interface and every tool works unchanged.
 */
import { spawn as spawnChild } from "node:child_process";
import { appendFile, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scrubCredentials } from "./credential-env.ts";

/** File metadata; `undefined` from `stat` means the path does not exist. */
export interface FileStat {
  isFile: boolean;
  isDirectory: boolean;
  size: number;
  mtimeMs: number;
}

/** A directory entry. */
export interface DirEntry {
  name: string;
  isDirectory: boolean;
}

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

/** Everything the built-in tools need from the machine. */
export interface ToolOperations {
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  appendFile(path: string, data: string | Uint8Array): Promise<void>;
  stat(path: string): Promise<FileStat | undefined>;
  /** Creates the directory and its parents; an existing directory is fine. */
  mkdir(path: string): Promise<void>;
  readdir(path: string): Promise<DirEntry[]>;
  spawn(request: SpawnRequest): Promise<SpawnResult>;
  /** Absolute path of an executable on the backend's PATH, or undefined. */
  which(name: string): Promise<string | undefined>;
  /** A directory for files the tools create (full bash output). */
  tempDir(): string;
  /** The user's home directory, for `~` in paths. */
  homeDir(): string;
  /** The shell and the arguments before the command (`["/bin/bash", "-c"]`). */
  shell(): { file: string; args: string[] };
}

/** Options of the local backend. */
export interface LocalOperationsOptions {
  /**
   * Environment for spawned processes and `which`; defaults to this process's. Spawned
   * processes get it without credentials (see `scrubCredentials`).
   */
  env?: Record<string, string | undefined>;
  /** Credential-looking variable names that spawned processes may still see (`shellEnvironment.allow`). */
  allowEnv?: readonly string[];
  tempDir?: string;
  homeDir?: string;
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

/** The tools' operations on this machine. */
export function createLocalOperations(options: LocalOperationsOptions = {}): ToolOperations {
  const env = options.env ?? process.env;
  const allow = options.allowEnv ?? [];
  const cleanEnv = scrubCredentials(env, allow);
  return {
    readFile: async (path) => new Uint8Array(await readFile(path)),
    writeFile: (path, data) => writeFile(path, data),
    appendFile: (path, data) => appendFile(path, data),
    stat: async (path) => {
      const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
        throw error;
      });
      if (!info) return undefined;
      return {
        isFile: info.isFile(),
        isDirectory: info.isDirectory(),
        size: info.size,
        mtimeMs: info.mtimeMs,
      };
    },
    mkdir: async (path) => {
      await mkdir(path, { recursive: true });
    },
    readdir: async (path) =>
      (await readdir(path, { withFileTypes: true })).map((entry) => ({
        name: entry.name,
        isDirectory: entry.isDirectory(),
      })),
    which: async (name) => Bun.which(name, { PATH: cleanEnv.PATH ?? "" }) ?? undefined,
    tempDir: () => options.tempDir ?? tmpdir(),
    homeDir: () => options.homeDir ?? cleanEnv.HOME ?? tmpdir(),
    shell: () => ({ file: Bun.which("bash", { PATH: cleanEnv.PATH ?? "" }) ?? "/bin/sh", args: ["-c"] }),
    spawn: (request) =>
      spawnLocal({ ...request, env: scrubCredentials({ ...cleanEnv, ...request.env }, allow) }),
  };
}

// Pipes normally close with the process. When a background job inherited them, output
// is still read while it keeps arriving (quiet periods of at most EXIT_OUTPUT_GRACE_MS),
// for at most EXIT_OUTPUT_MAX_MS after the exit; then the call stops waiting.
const EXIT_OUTPUT_GRACE_MS = 200;
const EXIT_OUTPUT_MAX_MS = 2000;

/** Runs one process in its own process group with exactly `request.env` as its environment. */
export function spawnLocal(request: SpawnRequest): Promise<SpawnResult> {
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

/** A fresh path in the backend's temp dir. */
export function tempPath(ops: ToolOperations, prefix: string, suffix: string): string {
  return join(
    ops.tempDir(),
    `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}${suffix}`,
  );
}
