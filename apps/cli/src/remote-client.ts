/**
 * `knightcode --remote <url>`: the terminal agent as a client of an app server that runs
 * elsewhere (`knightcode app-server --listen …`). Sessions, the working directory, tools,
 * `!` commands and `@` completion are the server's; this process only draws. The token
 * comes from an environment variable, never from the command line (which other users can
 * read in the process list), and the protocol package refuses to send it over plain
 * `ws://` to a host that is not loopback. A dropped connection is made again and its
 * threads resumed with replay (`ReconnectingTransport`), so a turn streaming at the time
 * goes on on the screen without a gap.
 */
import {
  AppServerClient,
  ReconnectingTransport,
  type ThreadResumeResult,
  type Transport,
  WebSocketTransport,
} from "@knightcode/app-server-protocol";
import type { ConnectionEvents, TerminalClient } from "./terminal-client.ts";

/** The variable `--remote` reads its token from unless `--remote-token-env` names another. */
export const DEFAULT_REMOTE_TOKEN_ENV = "KNIGHTCODE_REMOTE_TOKEN";

/** What attaching needs. */
export interface RemoteClientOptions {
  url: string;
  tokenEnv?: string;
  env?: Record<string, string | undefined>;
  clientName: string;
  extensionDialogs?: boolean;
}

/** An attached client and the server's working directory. */
export interface RemoteClient extends TerminalClient {
  /** Where the server runs: the directory new threads and `-c` use. */
  cwd: string;
  connection: ConnectionEvents;
}

/** Attaching failed: the reason, for one line on stderr. */
export class RemoteAttachError extends Error {
  override readonly name = "RemoteAttachError";
}

/** Connects, performs the handshake and learns the server's working directory. */
export async function connectRemoteClient(options: RemoteClientOptions): Promise<RemoteClient> {
  const env = options.env ?? process.env;
  const tokenEnv = options.tokenEnv ?? DEFAULT_REMOTE_TOKEN_ENV;
  const token = env[tokenEnv]?.trim() || undefined;
  try {
    let open: () => Promise<Transport>;
    if (options.url.startsWith("unix://")) {
      const { connectUnixSocket } = await import("@knightcode/app-server-protocol/unix");
      const path = options.url.slice("unix://".length);
      open = async () => {
        const socket = await connectUnixSocket(path);
        await socket.start();
        return socket;
      };
    } else {
      if (token === undefined) {
        throw new RemoteAttachError(
          `${options.url} needs a token: put it in ${tokenEnv} (see docs/remote.md)`,
        );
      }
      open = async () => {
        const socket = new WebSocketTransport(options.url, { token });
        await socket.start();
        return socket;
      };
    }
    // a dropped connection is made again and its threads resumed where the screen stopped
    const connection: ConnectionEvents = {};
    const transport = new ReconnectingTransport({
      open,
      onReconnecting: (attempt, error) => connection.onReconnecting?.(attempt, error),
      onReconnected: () => connection.onReconnected?.(),
      onGap: (threadId, result) => connection.onGap?.(threadId, result as ThreadResumeResult),
    });
    const client = new AppServerClient(transport);
    await client.connect();
    const initialized = await client.initialize({
      clientInfo: { name: options.clientName, version: "0.1.0" },
      ...(options.extensionDialogs === true ? { capabilities: { extensionDialogs: true } } : {}),
    });
    let closing: Promise<void> | undefined;
    return {
      client,
      cwd: initialized.platform.cwd ?? initialized.platform.homeDir,
      connection,
      close: () => {
        closing ??= client.close().catch(() => undefined);
        return closing;
      },
    };
  } catch (error) {
    if (error instanceof RemoteAttachError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    const hint = / 401\b|401 /.test(reason) ? ` (the server refused the token in ${tokenEnv})` : "";
    throw new RemoteAttachError(`cannot attach to ${options.url}: ${reason}${hint}`);
  }
}
