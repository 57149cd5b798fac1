/**
 * The server's log lines, written straight to file descriptor 2. `process.stderr` is a
 * Node stream that Bun builds on first touch (about 6 ms of CPU), which the server
 * would otherwise pay at every shutdown for its one "shutting down" line.
 */
import { writeSync } from "node:fs";

/** Writes `line` (a newline is added when missing); a closed or full stderr loses the line, never the server. */
export function logLine(line: string): void {
  const bytes = Buffer.from(line.endsWith("\n") ? line : `${line}\n`);
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(2, bytes, offset);
  } catch {
    // EPIPE, EBADF or EAGAIN on a non-blocking pipe: a log line is not worth failing for
  }
}
