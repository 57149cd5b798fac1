/**
 * The sandbox helper: runs inside bubblewrap, one per sandboxed thread, and carries out
 * the thread's file operations and processes there, so the kernel's view of the sandbox
 * (read-only system, hidden home, private /tmp, no network) applies to `read` and
 * `write` exactly as to `bash`. It speaks frames (frames.ts) on stdin/stdout.
 *
 * A library module: importing it does nothing. The processes that run the helper are
 * `knightcode __sandbox-helper` (from source or compiled) and the bare script
 * helper-main.ts (this package's tests), both of which call `runSandboxHelper` and exit
 * when it returns.
 */
import { stat } from "node:fs/promises";
import { localFileOperations } from "@knightcode/agent/local-files";
import { spawnLocal } from "@knightcode/agent/spawn-local";
import { encodeFrameHead, FrameReader } from "./frames.ts";

type Send = (header: Record<string, unknown>, payload?: Uint8Array) => void;

/**
 * A write through a file with more than one link would change every name of the inode,
 * and this side cannot see where the others are: such writes are refused (the mounts
 * already make links leading outside read-only; this also covers links made since).
 */
async function refuseLinked(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (info?.isFile() && info.nlink > 1) {
    const error = new Error(
      `Refused to write ${path}: it has ${info.nlink} hard links, and a write through one changes them all (some may lead outside the sandbox's writable area). Copy it to a new file first.`,
    ) as NodeJS.ErrnoException;
    error.code = "EXDEV";
    throw error;
  }
}

async function handle(
  send: Send,
  running: Map<number, AbortController>,
  header: Record<string, unknown>,
  payload: Uint8Array,
): Promise<void> {
  const id = header.id as number;
  const path = header.path as string;
  try {
    switch (header.op) {
      case "readFile":
        send({ id, type: "result" }, await localFileOperations.readFile(path));
        return;
      case "writeFile":
        await refuseLinked(path);
        await localFileOperations.writeFile(path, payload);
        break;
      case "appendFile":
        await refuseLinked(path);
        await localFileOperations.appendFile(path, payload);
        break;
      case "stat":
        send({ id, type: "result", value: (await localFileOperations.stat(path)) ?? null });
        return;
      case "mkdir":
        await localFileOperations.mkdir(path);
        break;
      case "readdir":
        send({ id, type: "result", value: await localFileOperations.readdir(path) });
        return;
      case "which":
        send({
          id,
          type: "result",
          value: Bun.which(header.name as string, { PATH: (header.PATH as string) ?? "" }) ?? null,
        });
        return;
      case "spawn": {
        const controller = new AbortController();
        running.set(id, controller);
        try {
          const result = await spawnLocal({
            file: header.file as string,
            args: header.args as string[],
            cwd: header.cwd as string,
            env: header.env as Record<string, string>,
            signal: controller.signal,
            ...(typeof header.timeoutMs === "number" ? { timeoutMs: header.timeoutMs } : {}),
            onStdout: (chunk) => send({ id, type: "stdout" }, chunk),
            onStderr: (chunk) => send({ id, type: "stderr" }, chunk),
          });
          send({ id, type: "result", value: result });
        } finally {
          running.delete(id);
        }
        return;
      }
      case "abort":
        running.get(header.target as number)?.abort();
        return;
      default:
        throw new Error(`unknown sandbox operation ${String(header.op)}`);
    }
    send({ id, type: "result", value: null });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    send({ id, type: "error", message: e.message ?? String(error), ...(e.code ? { code: e.code } : {}) });
  }
}

/**
 * Serves the sandbox's operations on this process's stdin and stdout: says `ready`, then
 * answers frames until the server closes stdin. Returns then; the caller exits (a spawn
 * still running is the sandbox's to end, and it ends with us).
 */
export async function runSandboxHelper(): Promise<void> {
  const writer = Bun.stdout.writer();
  const send: Send = (header, payload) => {
    writer.write(encodeFrameHead(header, payload?.length ?? 0));
    if (payload && payload.length > 0) writer.write(payload);
    void writer.flush();
  };
  const running = new Map<number, AbortController>();
  const reader = new FrameReader();
  send({ type: "ready" });
  for await (const chunk of Bun.stdin.stream()) {
    for (const frame of reader.push(chunk)) void handle(send, running, frame.header, frame.payload);
  }
}
