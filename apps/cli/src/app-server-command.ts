/**
 * `knightcode app-server`: the host process around the server's stdio loop. The host
 * loads in the background (`lazy-host.ts`), so `initialize` is answered before it is
 * ready; requests that need it wait.
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
  await serveStdio({ ...host.serverOptions, onShutdown: host.dispose });
}
