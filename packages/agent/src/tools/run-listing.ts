/**
 * Runs a line-oriented listing program (rg, fd) and keeps at most `limit` lines, stopping
 * the process as soon as it has them instead of letting it scan the whole tree.
 */
import type { ToolOperations } from "./operations.ts";

/** What a listing run produced. */
export interface ListingOutput {
  lines: string[];
  /** True when the process had more lines than `limit`. */
  hitLimit: boolean;
  exitCode: number | null;
  stderr: string;
}

/** Spawns `file args` in `cwd`, collecting up to `limit` stdout lines. */
export async function runListing(
  ops: ToolOperations,
  request: { file: string; args: string[]; cwd: string; limit: number; signal: AbortSignal },
): Promise<ListingOutput> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  request.signal.addEventListener("abort", onAbort, { once: true });
  const decoder = new TextDecoder();
  const errDecoder = new TextDecoder();
  const lines: string[] = [];
  let partial = "";
  let stderr = "";
  let hitLimit = false;
  const take = (textChunk: string) => {
    partial += textChunk;
    let newline = partial.indexOf("\n");
    while (newline !== -1 && !hitLimit) {
      const line = partial.slice(0, newline);
      partial = partial.slice(newline + 1);
      if (lines.length >= request.limit) {
        hitLimit = true;
        stop.abort();
      } else if (line !== "") lines.push(line);
      newline = partial.indexOf("\n");
    }
  };
  try {
    const result = await ops.spawn({
      file: request.file,
      args: request.args,
      cwd: request.cwd,
      signal: stop.signal,
      onStdout: (chunk) => take(decoder.decode(chunk, { stream: true })),
      onStderr: (chunk) => {
        if (stderr.length < 4096) stderr += errDecoder.decode(chunk, { stream: true });
      },
    });
    if (request.signal.aborted) throw new Error("Aborted.");
    if (!hitLimit) take(`${decoder.decode()}\n`);
    return { lines, hitLimit, exitCode: result.exitCode, stderr: stderr.trim() };
  } finally {
    request.signal.removeEventListener("abort", onAbort);
  }
}
