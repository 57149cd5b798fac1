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
  request: {
    file: string;
    args: string[];
    cwd: string;
    limit: number;
    signal: AbortSignal;
    /** Characters kept of each line; the rest of a longer line is skipped as it streams. */
    maxLineChars?: number;
  },
): Promise<ListingOutput> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  request.signal.addEventListener("abort", onAbort, { once: true });
  const decoder = new TextDecoder();
  const errDecoder = new TextDecoder();
  const maxLineChars = request.maxLineChars ?? Number.POSITIVE_INFINITY;
  const lines: string[] = [];
  // The unfinished last line, capped at maxLineChars (+1 so a cut is still visible).
  let partial = "";
  let stderr = "";
  let hitLimit = false;
  const take = (textChunk: string) => {
    let from = 0;
    while (!hitLimit) {
      const newline = textChunk.indexOf("\n", from);
      const piece = textChunk.slice(from, newline === -1 ? textChunk.length : newline);
      // Each chunk is scanned once and a line keeps at most maxLineChars + 1, so a huge
      // line (minified code) costs linear time and bounded memory.
      if (partial.length <= maxLineChars) partial += piece.slice(0, maxLineChars + 1 - partial.length);
      if (newline === -1) return;
      from = newline + 1;
      const line = partial;
      partial = "";
      if (line === "") continue;
      if (lines.length >= request.limit) {
        hitLimit = true;
        stop.abort();
      } else lines.push(line);
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
