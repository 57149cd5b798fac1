/**
 * pi's tool factories (`createReadTool(cwd, { operations })` … `createLsTool`) over
 * KnightCode's built-in tools. A pi `operations` object replaces the matching parts of
 * the local backend, so an extension that routes `bash` or file access elsewhere (a
 * sandbox, a remote machine) keeps working; the tools' output, limits and errors are
 * KnightCode's. The returned object has pi's tool shape: spread it into `registerTool`
 * and call `execute(toolCallId, params, signal, onUpdate)`.
 */
import {
  type AgentToolResult,
  type AnyAgentTool,
  createBashTool as createKnightBash,
  createEditTool as createKnightEdit,
  createFindTool as createKnightFind,
  createGrepTool as createKnightGrep,
  createLsTool as createKnightLs,
  createReadTool as createKnightRead,
  createWriteTool as createKnightWrite,
  createLocalOperations,
  type FileStat,
  type SpawnRequest,
  type SpawnResult,
  type ToolOperations,
} from "@knightcode/agent";
import type { TSchema } from "typebox";

type Awaitable<T> = T | Promise<T>;

/** pi's `BashOperations`. */
export interface BashOperations {
  exec(
    command: string,
    cwd: string,
    options: {
      onData: (data: Buffer) => void;
      signal?: AbortSignal;
      timeout?: number;
      env?: Record<string, string | undefined>;
    },
  ): Promise<{ exitCode: number | null }>;
}

/** pi's file operations of read, write and edit (each tool uses its part). */
export interface FileOperations {
  readFile?(absolutePath: string): Promise<Buffer | Uint8Array>;
  writeFile?(absolutePath: string, content: string): Promise<void>;
  mkdir?(dir: string): Promise<void>;
  access?(absolutePath: string): Promise<void>;
}

/** pi's `LsOperations`. */
export interface LsOperations {
  exists?(absolutePath: string): Awaitable<boolean>;
  stat?(absolutePath: string): Awaitable<{ isDirectory(): boolean }>;
  readdir?(absolutePath: string): Awaitable<string[]>;
}

/** The options every pi tool factory takes. */
export interface PiToolOptions {
  operations?: BashOperations | FileOperations | LsOperations | Record<string, unknown>;
  [option: string]: unknown;
}

/** A tool in pi's shape. */
export interface PiTool {
  name: string;
  label: string;
  description: string;
  parameters: TSchema;
  execute(
    toolCallId: string,
    params: unknown,
    signal?: AbortSignal,
    onUpdate?: (partial: AgentToolResult) => void,
    ctx?: unknown,
  ): Promise<AgentToolResult>;
}

/** Our spawn request run through pi's `exec(command, cwd, { onData })`. */
function spawnThrough(ops: BashOperations): ToolOperations["spawn"] {
  return async (request: SpawnRequest): Promise<SpawnResult> => {
    const command = request.args.at(-1) ?? "";
    const onData = (data: Buffer) => request.onStdout?.(new Uint8Array(data));
    try {
      const { exitCode } = await ops.exec(command, request.cwd, {
        onData,
        ...(request.signal ? { signal: request.signal } : {}),
        ...(request.timeoutMs !== undefined ? { timeout: request.timeoutMs / 1000 } : {}),
        ...(request.env ? { env: { ...process.env, ...request.env } } : {}),
      });
      return { exitCode, signal: null, timedOut: false, aborted: request.signal?.aborted === true };
    } catch (error) {
      // pi's backends reject with "aborted" or "timeout:<seconds>"
      const message = error instanceof Error ? error.message : String(error);
      if (request.signal?.aborted || message === "aborted") {
        return { exitCode: null, signal: "SIGKILL", timedOut: false, aborted: true };
      }
      if (message.startsWith("timeout:")) {
        return { exitCode: null, signal: "SIGKILL", timedOut: true, aborted: false };
      }
      throw error;
    }
  };
}

/** The local backend with the parts pi's `operations` supply replaced. */
function operationsFrom(options: PiToolOptions | undefined): ToolOperations {
  const local = createLocalOperations();
  const ops = (options?.operations ?? {}) as BashOperations & FileOperations & LsOperations;
  const merged: ToolOperations = { ...local };
  if (typeof ops.exec === "function") merged.spawn = spawnThrough(ops);
  if (typeof ops.readFile === "function") {
    const read = ops.readFile.bind(ops);
    merged.readFile = async (path) => new Uint8Array(await read(path));
  }
  if (typeof ops.writeFile === "function") {
    const write = ops.writeFile.bind(ops);
    merged.writeFile = (path, data) =>
      write(path, typeof data === "string" ? data : new TextDecoder().decode(data));
  }
  if (typeof ops.mkdir === "function") merged.mkdir = ops.mkdir.bind(ops);
  if (
    typeof ops.readdir === "function" ||
    typeof ops.access === "function" ||
    typeof ops.stat === "function"
  ) {
    merged.stat = (path) => remoteStat(ops, path, local);
  }
  if (typeof ops.readdir === "function") {
    const readdir = ops.readdir.bind(ops);
    merged.readdir = async (path) => {
      const names = await readdir(path);
      return Promise.all(
        names.map(async (name) => {
          const stat = await merged.stat(`${path.replace(/\/$/, "")}/${name}`);
          return { name, isDirectory: stat?.isDirectory === true };
        }),
      );
    };
  }
  return merged;
}

/** A stat answered by pi's `stat`/`access`/`exists` where the extension supplies them. */
async function remoteStat(
  ops: FileOperations & LsOperations,
  path: string,
  local: ToolOperations,
): Promise<FileStat | undefined> {
  if (typeof ops.exists === "function" && !(await ops.exists(path))) return undefined;
  if (typeof ops.stat === "function") {
    try {
      const isDirectory = (await ops.stat(path)).isDirectory();
      return { isFile: !isDirectory, isDirectory, size: 0, mtimeMs: 0 };
    } catch {
      return undefined;
    }
  }
  if (typeof ops.access === "function") {
    try {
      await ops.access(path);
    } catch {
      return undefined;
    }
    return (await local.stat(path)) ?? { isFile: true, isDirectory: false, size: 0, mtimeMs: 0 };
  }
  return local.stat(path);
}

/** Our tool in pi's shape. */
function piShaped(tool: AnyAgentTool): PiTool {
  return {
    name: tool.name,
    label: tool.label ?? tool.name,
    description: tool.description,
    parameters: tool.parameters,
    execute: (toolCallId, params, signal, onUpdate) =>
      tool.execute(params, {
        toolCallId,
        signal: signal ?? new AbortController().signal,
        onUpdate: (partial) => onUpdate?.(partial),
      }),
  };
}

type KnightFactory = (env: { cwd: string; ops: ToolOperations }) => AnyAgentTool;

function factory(create: KnightFactory) {
  return (cwd: string, options?: PiToolOptions): PiTool =>
    piShaped(create({ cwd, ops: operationsFrom(options) }));
}

export const createReadTool = factory(createKnightRead);
export const createWriteTool = factory(createKnightWrite);
export const createEditTool = factory(createKnightEdit);
export const createBashTool = factory(createKnightBash);
export const createGrepTool = factory(createKnightGrep);
export const createFindTool = factory(createKnightFind);
export const createLsTool = factory(createKnightLs);

// pi's `…ToolDefinition` variants have the same shape here (no renderers without a terminal).
export const createReadToolDefinition = createReadTool;
export const createWriteToolDefinition = createWriteTool;
export const createEditToolDefinition = createEditTool;
export const createBashToolDefinition = createBashTool;
export const createGrepToolDefinition = createGrepTool;
export const createFindToolDefinition = createFindTool;
export const createLsToolDefinition = createLsTool;

/** pi's read-only and coding tool sets. */
export function createCodingTools(cwd: string, options?: PiToolOptions): PiTool[] {
  return [
    createReadTool(cwd, options),
    createBashTool(cwd, options),
    createEditTool(cwd, options),
    createWriteTool(cwd, options),
  ];
}

export function createReadOnlyTools(cwd: string, options?: PiToolOptions): PiTool[] {
  return [
    createReadTool(cwd, options),
    createGrepTool(cwd, options),
    createFindTool(cwd, options),
    createLsTool(cwd, options),
  ];
}

/** pi's local bash backend: runs the command with the user's shell. */
export function createLocalBashOperations(): BashOperations {
  const local = createLocalOperations();
  return {
    async exec(command, cwd, options) {
      const shell = local.shell();
      const result = await local.spawn({
        file: shell.file,
        args: [...shell.args, command],
        cwd,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.timeout !== undefined ? { timeoutMs: options.timeout * 1000 } : {}),
        onStdout: (chunk) => options.onData(Buffer.from(chunk)),
        onStderr: (chunk) => options.onData(Buffer.from(chunk)),
      });
      if (result.aborted) throw new Error("aborted");
      if (result.timedOut) throw new Error(`timeout:${options.timeout}`);
      return { exitCode: result.exitCode };
    },
  };
}
