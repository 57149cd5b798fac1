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
import type { DirEntry, FileStat, ToolOperations } from "./tool-operations.ts";

export type { DirEntry, FileStat, SpawnRequest, SpawnResult, ToolOperations };

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
