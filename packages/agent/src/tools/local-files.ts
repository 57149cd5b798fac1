/**
 * The file half of the local backend, on this process's file system. Node built-ins only,
 * so the sandbox helper runs the very same code inside bubblewrap.
 */
import { appendFile, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import type { ToolOperations } from "./tool-operations.ts";

/** File operations of a backend. */
export type FileOperations = Pick<
  ToolOperations,
  "readFile" | "writeFile" | "appendFile" | "stat" | "mkdir" | "readdir"
>;

/** The file operations on this process's file system. */
export const localFileOperations: FileOperations = {
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
};
