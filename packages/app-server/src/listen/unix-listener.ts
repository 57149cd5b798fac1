/**
 * The `unix://PATH` listener: JSON lines over each accepted socket, exactly the stdio
 * framing and limits (the stdio transport serves each socket). The socket file is made
 * with mode 0600 and its permissions are its authentication: only its owner (and root)
 * can connect, so no token is asked. A stale socket file left by a crashed server is
 * replaced; a live one, or any other kind of file, is refused.
 */
import { chmodSync, lstatSync, rmSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { StdioServerTransport } from "../stdio-transport.ts";

/** A socket path that cannot be listened on, with the reason (exit 2). */
export class UnixListenError extends Error {
  override readonly name = "UnixListenError";
}

/** A running unix-socket listener. */
export interface UnixListener {
  readonly path: string;
  readonly connections: ReadonlySet<StdioServerTransport>;
  /** Refuses new connections; open ones go on. */
  startDrain(): void;
  /** Closes every connection, stops listening and removes the socket file. */
  stop(): Promise<void>;
}

/** Whether something answers on the socket at `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

async function clearStale(path: string): Promise<void> {
  let kind: "socket" | "other" | "none";
  try {
    kind = lstatSync(path).isSocket() ? "socket" : "other";
  } catch {
    kind = "none";
  }
  if (kind === "none") return;
  if (kind === "other")
    throw new UnixListenError(`${path} exists and is not a socket; refusing to replace it`);
  if (await answers(path)) throw new UnixListenError(`another server is listening on ${path}`);
  rmSync(path, { force: true });
}

/** Listens on `path`; each accepted socket becomes a connection handed to `accept`. */
export async function startUnixListener(
  path: string,
  accept: (transport: StdioServerTransport) => void,
): Promise<UnixListener> {
  await clearStale(path);
  const connections = new Set<StdioServerTransport>();
  const sockets = new Set<Socket>();
  let draining = false;
  const server: Server = createServer((socket) => {
    if (draining) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    const transport = new StdioServerTransport({ input: socket, output: socket });
    connections.add(transport);
    socket.once("close", () => {
      sockets.delete(socket);
      connections.delete(transport);
    });
    accept(transport);
  });
  // the socket is born 0600: no moment exists in which another user could connect
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error: NodeJS.ErrnoException) =>
        reject(new UnixListenError(`cannot listen on ${path}: ${error.code ?? error.message}`)),
      );
      server.listen(path, () => resolve());
    });
  } finally {
    process.umask(umask);
  }
  chmodSync(path, 0o600);
  return {
    path,
    connections,
    startDrain() {
      draining = true;
    },
    async stop() {
      for (const transport of [...connections]) await transport.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(path, { force: true });
    },
  };
}
