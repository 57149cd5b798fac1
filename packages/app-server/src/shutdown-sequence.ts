/**
 * The order a server process ends in, whatever it listens on: the server shuts down
 * (new input stops, threads unload, accepted requests are answered, leftovers get
 * `shuttingDown` at nine seconds), the host is disposed, output drains, and the process
 * exits; ten seconds after the start it exits anyway, drained or not, so a client that
 * stopped reading cannot keep it alive.
 */
import type { AppServer } from "./server.ts";
import { logLine } from "./stderr-log.ts";

/** Shutdown ends the process this long after it began, drained or not. */
export const HARD_EXIT_MS = 10_000;

/** Options for {@link createShutdownSequence}. */
export interface ShutdownSequenceOptions {
  server: AppServer;
  /** Runs after the server shut down, before output drains (e.g. disposing the host). */
  onShutdown?: () => Promise<void>;
  /** Resolves once every connection's output has left the process. */
  drained: () => Promise<void>;
  /** Runs last, before exit (closing listeners, removing a generated token file). */
  release?: () => Promise<void>;
  exit: (code: number) => void;
  hardExitMs?: number;
}

/** A shutdown that starts once, on the first `stop`. */
export interface ShutdownSequence {
  /** Starts the shutdown (later calls do nothing). */
  stop(why: string): void;
  /** Resolves when the process is about to exit. */
  readonly finished: Promise<void>;
  readonly stopping: boolean;
}

/** Creates the sequence; nothing happens until `stop`. */
export function createShutdownSequence(options: ShutdownSequenceOptions): ShutdownSequence {
  const { promise: finished, resolve: finish } = Promise.withResolvers<void>();
  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    logLine(`knightcode app-server: shutting down (${why})\n`);
    const hardExit = setTimeout(() => {
      logLine("knightcode app-server: hard exit after 10 s\n");
      options.exit(0);
      finish();
    }, options.hardExitMs ?? HARD_EXIT_MS);
    void (async () => {
      try {
        await options.server.shutdown();
        await options.onShutdown?.();
      } catch (error) {
        logLine(`knightcode app-server: shutdown failed: ${String(error)}\n`);
      }
      // the last second is for output; a client that stopped reading meets the hard exit
      await options.drained();
      try {
        await options.release?.();
      } catch (error) {
        logLine(`knightcode app-server: closing the listener failed: ${String(error)}\n`);
      }
      clearTimeout(hardExit);
      options.exit(0);
      finish();
    })();
  };
  return {
    stop,
    finished,
    get stopping() {
      return stopping;
    },
  };
}
