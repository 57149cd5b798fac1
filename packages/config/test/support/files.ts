/** Small helpers for laying out real files in test temp dirs. */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** Writes `content` (JSON for non-strings) at `root/relative`, creating folders. */
export async function put(root: string, relative: string, content: unknown): Promise<string> {
  const path = join(root, relative);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`);
  return path;
}

/** Awaits a promise's rejection and returns the error (fails when it resolves). */
export async function rejection(
  promise: Promise<unknown>,
): Promise<{ code?: string; data?: unknown; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; data?: unknown; message: string };
  }
  throw new Error("expected the promise to reject");
}

/** Creates a FIFO at `root/relative` with the real `mkfifo`, creating folders. */
export async function fifo(root: string, relative: string): Promise<string> {
  const path = join(root, relative);
  await mkdir(dirname(path), { recursive: true });
  const made = Bun.spawnSync(["mkfifo", path]);
  if (made.exitCode !== 0) throw new Error(`mkfifo failed: ${made.stderr.toString()}`);
  return path;
}
