/**
 * The interface the built-in tools act through (files, processes, the home and temp
 * directories). `operations.ts` implements it locally; sandboxes and remote backends
 * implement it elsewhere.
 */
import type { SpawnRequest, SpawnResult } from "./spawn-local.ts";

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
