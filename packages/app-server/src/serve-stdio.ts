/**
 * `knightcode app-server`'s process loop: one connection on stdin/stdout, shutdown on
 * stdin EOF, SIGINT or SIGTERM, and a hard exit ten seconds after shutdown began even
 * when the client has stopped reading stdout.
 */
import { Console } from "node:console";
import { processStdin, processStdout } from "./process-stdio.ts";
import { type AppServerOptions, createAppServer, SHUTDOWN_ANSWER_MS } from "./server.ts";
import { createShutdownSequence, HARD_EXIT_MS } from "./shutdown-sequence.ts";
import { type ByteSink, type ByteSource, StdioServerTransport } from "./stdio-transport.ts";

export { HARD_EXIT_MS };

/** Options for {@link serveStdio}. */
export interface ServeStdioOptions extends AppServerOptions {
  input?: ByteSource;
  output?: ByteSink;
  /** Ends the process; injectable for tests. */
  exit?: (code: number) => void;
  /** Also runs after the server shut down, before exit (e.g. disposing the host's context). */
  onShutdown?: () => Promise<void>;
  hardExitMs?: number;
  /** Listen to SIGINT/SIGTERM (default true). */
  handleSignals?: boolean;
}

/** The console methods that write to stdout (and their stderr siblings, for one consistent console). */
const CONSOLE_METHODS = [
  "log",
  "info",
  "debug",
  "dir",
  "dirxml",
  "table",
  "trace",
  "warn",
  "error",
  "group",
  "groupCollapsed",
  "groupEnd",
  "count",
  "countReset",
  "time",
  "timeEnd",
  "timeLog",
  "assert",
] as const;

/** The stderr console the global one forwards to, made on the first call (see below). */
let stderrConsole: Console | undefined;

/**
 * Points the global console at stderr. stdout belongs to the protocol: a `console.log`
 * anywhere in the process (a dependency, a model SDK, a loaded extension) would
 * otherwise put a line the client cannot parse between protocol messages. The stderr
 * console is built on the first call, not here: building one costs a server ~3 ms at
 * start (it loads the stream and inspect machinery), and most runs never log.
 */
export function keepConsoleOffStdout(): void {
  const target = console as unknown as Record<string, unknown>;
  for (const name of CONSOLE_METHODS) {
    target[name] = (...args: unknown[]) => {
      stderrConsole ??= new Console({ stdout: process.stderr, stderr: process.stderr });
      const method = (stderrConsole as unknown as Record<string, unknown>)[name];
      return typeof method === "function" ? method.apply(stderrConsole, args) : undefined;
    };
  }
}

/** Serves one stdio connection until shutdown; resolves when the process is about to exit. */
export async function serveStdio(options: ServeStdioOptions): Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  if (options.output === undefined) keepConsoleOffStdout();
  const hardExitMs = options.hardExitMs ?? HARD_EXIT_MS;
  const server = createAppServer({
    ...options,
    shutdownAnswerMs: options.shutdownAnswerMs ?? SHUTDOWN_ANSWER_MS,
  });
  const transport = new StdioServerTransport({
    input: options.input ?? processStdin(),
    output: options.output ?? processStdout(),
  });
  const { stop, finished } = createShutdownSequence({
    server,
    ...(options.onShutdown === undefined ? {} : { onShutdown: options.onShutdown }),
    drained: () => transport.drained(),
    exit,
    hardExitMs,
  });

  transport.onInputEnded = () => stop("stdin closed");
  // The client stopped reading: its connection is gone (stdout ends), so the server goes
  // too, as on stdin EOF, instead of running on with nobody able to talk to it.
  transport.onOverflow = () => stop("unread output passed the 64 MiB limit");
  if (options.handleSignals !== false) {
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  }
  await server.connect(transport, { clientKind: "desktop" });
  return finished;
}
