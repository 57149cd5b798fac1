/**
 * The seam between the built-in tools and the machine they act on. The local backend
 * below uses this process's file system and child processes; a container or sandbox
 * backend implements the same interface and every tool works unchanged.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scrubCredentials } from "./credential-env.ts";
import { localFileOperations } from "./local-files.ts";
import { type SpawnRequest, type SpawnResult, spawnLocal } from "./spawn-local.ts";

export type { SpawnRequest, SpawnResult };

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

/** The tools' operations on this machine. */
export function createLocalOperations(options: LocalOperationsOptions = {}): ToolOperations {
  const env = options.env ?? process.env;
  const allow = options.allowEnv ?? [];
  const cleanEnv = scrubCredentials(env, allow);
  return {
    ...localFileOperations,
    which: async (name) => Bun.which(name, { PATH: cleanEnv.PATH ?? "" }) ?? undefined,
    tempDir: () => options.tempDir ?? tmpdir(),
    homeDir: () => options.homeDir ?? cleanEnv.HOME ?? tmpdir(),
    shell: () => ({ file: Bun.which("bash", { PATH: cleanEnv.PATH ?? "" }) ?? "/bin/sh", args: ["-c"] }),
    spawn: (request) =>
      spawnLocal({ ...request, env: scrubCredentials({ ...cleanEnv, ...request.env }, allow) }),
  };
}

/** A fresh path in the backend's temp dir. */
export function tempPath(ops: ToolOperations, prefix: string, suffix: string): string {
  return join(
    ops.tempDir(),
    `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}${suffix}`,
  );
}
