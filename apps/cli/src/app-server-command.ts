/**
 * `knightcode app-server`: the host process around the server's stdio loop. The host
 * loads in the background (`lazy-host.ts`) while the server starts reading; `initialize`
 * is answered once it has loaded, so the first thread/start, list or read after the
 * handshake runs at once instead of waiting for the load.
 */
import { keepConsoleOffStdout, serveStdio } from "@knightcode/app-server";
import type { ServerOptions } from "./args.ts";
import { startLazyHost } from "./lazy-host.ts";

/** Runs the server on stdin/stdout until shutdown ends the process. */
export async function runAppServer(options: ServerOptions): Promise<void> {
  // before anything loads that might log: stdout is the protocol's
  keepConsoleOffStdout();
  const { sandbox, ...rest } = options;
  const host = startLazyHost({
    cwd: process.cwd(),
    ...rest,
    ...(sandbox === "tools" ? { sandbox: true } : {}),
  });
  // `initialize` is answered once the host has loaded: the client's next requests need it
  await serveStdio({ ...host.serverOptions, ready: host.loaded, onShutdown: host.dispose });
}
