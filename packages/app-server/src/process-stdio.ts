/**
 * The process's own stdin and stdout as the stdio transport's byte source and sink,
 * through Bun's native file streams. `process.stdin` and `process.stdout` are Node stream
 * objects: touching them loads Node's stream machinery, ~10 ms of CPU on every server
 * start, spent exactly when the server should be answering `initialize` and loading the
 * thread manager. Bun's streams read and write the same descriptors without it.
 */
import type { ByteSink, ByteSource } from "./stdio-transport.ts";

/** stdin as chunks of bytes; ends at EOF. */
export function processStdin(): ByteSource {
  return Bun.stdin.stream() as unknown as ByteSource;
}

/**
 * stdout with Node `Writable` write semantics: each write's callback runs once its bytes
 * have reached the descriptor (or with the error, e.g. EPIPE when the reader went away),
 * so the transport's count of unread output stays what the reader has not taken.
 */
export function processStdout(): ByteSink {
  const sink = Bun.stdout.writer();
  return {
    write(chunk, callback) {
      let done: number | Promise<number>;
      try {
        // Bun's sink answers a write it could not finish at once (a full pipe, a reader
        // gone) with a promise, though its types say a number; EPIPE rejects that promise
        const written = sink.write(chunk) as unknown as number | Promise<number>;
        done = typeof written === "number" ? sink.flush() : written.then(() => sink.flush());
      } catch (error) {
        queueMicrotask(() => callback(error as Error));
        return false;
      }
      if (typeof done === "number") queueMicrotask(() => callback());
      else
        done.then(
          () => callback(),
          (error: Error) => callback(error),
        );
      return true;
    },
    end() {
      try {
        const ended = sink.end();
        // a reader gone at shutdown is no failure of ours
        if (typeof ended !== "number") ended.catch(() => undefined);
      } catch {
        // already closed by the peer
      }
    },
  };
}
