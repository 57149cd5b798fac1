/**
 * `knightcode app-server --listen unix://…|ws://…|wss://…`: the server's process loop on
 * a listener. Many connections at once, each its own `initialize`, subscriptions and
 * capabilities; each is a reconnectable client (a disconnect leaves its approvals pending
 * for the thread's next subscriber). SIGTERM/SIGINT drain exactly as stdin EOF does on
 * stdio: `/readyz` answers 503 from the first moment, new connections are refused, and
 * the shutdown sequence runs (nine seconds for answers, the tenth for output).
 */
import { readFileSync } from "node:fs";
import type { Transport } from "@knightcode/app-server-protocol";
import { keepConsoleOffStdout } from "../serve-stdio.ts";
import { type AppServerOptions, createAppServer, SHUTDOWN_ANSWER_MS } from "../server.ts";
import { createShutdownSequence } from "../shutdown-sequence.ts";
import { logLine } from "../stderr-log.ts";
import type { ListenAddress } from "./listen-address.ts";
import { discardToken, generateToken, type ListenerToken, readTokenFile } from "./listener-token.ts";
import { startUnixListener } from "./unix-listener.ts";
import { type StaticAssets, startWebSocketListener } from "./websocket-listener.ts";

/** A listener configuration that cannot start, with the reason (exit 2). */
export class ListenConfigError extends Error {
  override readonly name = "ListenConfigError";
}

/** Where the listener is, once it listens. `token` is for an embedding process (the web command), never for a log. */
export interface ListeningInfo {
  url: string;
  tokenFile?: string;
  token?: string;
}

/** Options for {@link serveListener}. */
export interface ServeListenerOptions extends AppServerOptions {
  address: Exclude<ListenAddress, { kind: "stdio" }>;
  /** Where a generated token file goes (`<agentDir>/remote/`). */
  agentDir: string;
  tokenFile?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  allowOrigins?: readonly string[];
  /** The web client's page and assets (see `StaticAssets`). */
  staticAssets?: StaticAssets;
  onListening?: (info: ListeningInfo) => void;
  onShutdown?: () => Promise<void>;
  exit?: (code: number) => void;
  hardExitMs?: number;
  handleSignals?: boolean;
  /** Heartbeat period of WebSocket connections (default 20 s). */
  pingIntervalMs?: number;
}

function readPem(path: string, flag: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new ListenConfigError(
      `cannot read ${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

/** Checks the flags against the address before anything binds; throws {@link ListenConfigError}. */
export function checkListenConfig(
  options: Pick<ServeListenerOptions, "address" | "tokenFile" | "tlsCertFile" | "tlsKeyFile">,
): void {
  const { address } = options;
  const tls = options.tlsCertFile !== undefined || options.tlsKeyFile !== undefined;
  if (address.kind === "unix") {
    if (options.tokenFile !== undefined || tls) {
      throw new ListenConfigError(
        "unix:// needs no --token-file or TLS: the socket file's 0600 mode is its authentication",
      );
    }
    return;
  }
  if (address.kind === "ws" && tls)
    throw new ListenConfigError("--tls-cert and --tls-key need a wss:// address");
  if (address.kind === "wss" && (options.tlsCertFile === undefined || options.tlsKeyFile === undefined)) {
    throw new ListenConfigError("wss:// needs both --tls-cert and --tls-key");
  }
  if (!address.loopback && (address.kind !== "wss" || options.tokenFile === undefined)) {
    throw new ListenConfigError(
      `refusing to listen on ${address.hostname}, which is not a loopback address, without TLS and --token-file: ` +
        "use wss:// with --tls-cert, --tls-key and --token-file, or listen on 127.0.0.1 and forward the port over ssh",
    );
  }
}

/** Serves until shutdown; resolves when the process is about to exit. Throws {@link ListenConfigError} before binding. */
export async function serveListener(options: ServeListenerOptions): Promise<void> {
  checkListenConfig(options);
  const { address } = options;
  const tls =
    address.kind === "wss"
      ? { cert: readPem(options.tlsCertFile!, "--tls-cert"), key: readPem(options.tlsKeyFile!, "--tls-key") }
      : undefined;
  let token: ListenerToken | undefined;
  if (address.kind !== "unix") {
    token = options.tokenFile === undefined ? undefined : readTokenFile(options.tokenFile);
  }
  keepConsoleOffStdout();
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const server = createAppServer({
    ...options,
    shutdownAnswerMs: options.shutdownAnswerMs ?? SHUTDOWN_ANSWER_MS,
  });
  let ready = options.ready === undefined;
  options.ready?.then(
    () => {
      ready = true;
    },
    () => {},
  );
  const accept = (transport: Transport): void => {
    server
      .connect(transport, { clientKind: "desktop", reconnectable: true })
      .catch(() => void transport.close());
  };

  let listener: {
    startDrain(): void;
    stop(): Promise<void>;
    connections: ReadonlySet<{ drained(): Promise<void> }>;
  };
  let info: ListeningInfo;
  if (address.kind === "unix") {
    const unix = await startUnixListener(address.path, accept);
    listener = unix;
    info = { url: `unix://${address.path}` };
  } else {
    // one generated token per process: several servers may share an agent dir
    const pending = token ?? generateToken(options.agentDir, `app-server-${process.pid}`);
    let ws: ReturnType<typeof startWebSocketListener>;
    try {
      ws = startWebSocketListener({
        address,
        token: pending,
        ...(tls === undefined ? {} : { tls }),
        ...(options.allowOrigins === undefined ? {} : { allowOrigins: options.allowOrigins }),
        ...(options.staticAssets === undefined ? {} : { staticAssets: options.staticAssets }),
        ...(options.pingIntervalMs === undefined ? {} : { pingIntervalMs: options.pingIntervalMs }),
        accept,
        isReady: () => ready,
      });
    } catch (error) {
      discardToken(pending);
      throw new ListenConfigError(
        `cannot listen on ${address.hostname}:${address.port}: ${(error as Error).message}`,
      );
    }
    token = pending;
    listener = ws;
    info = { url: ws.url, tokenFile: pending.file, token: pending.value };
  }

  const sequence = createShutdownSequence({
    server,
    ...(options.onShutdown === undefined ? {} : { onShutdown: options.onShutdown }),
    drained: async () => {
      await Promise.all([...listener.connections].map((c) => c.drained()));
    },
    release: async () => {
      await listener.stop();
      if (token !== undefined) discardToken(token);
    },
    exit,
    ...(options.hardExitMs === undefined ? {} : { hardExitMs: options.hardExitMs }),
  });
  const stop = (why: string) => {
    listener.startDrain();
    sequence.stop(why);
  };
  if (options.handleSignals !== false) {
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  }
  logLine(`knightcode app-server: listening on ${info.url}\n`);
  if (info.tokenFile !== undefined) {
    const generated = token?.generated === true ? " (made for this run, removed at exit)" : "";
    logLine(`knightcode app-server: token file ${info.tokenFile}${generated}\n`);
    logLine(
      `knightcode app-server: attach with KNIGHTCODE_REMOTE_TOKEN="$(cat ${info.tokenFile})" knightcode --remote ${info.url}\n`,
    );
  }
  options.onListening?.(info);
  return sequence.finished;
}
