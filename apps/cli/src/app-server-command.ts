/**
 * `knightcode app-server`: the host process around the server's loop, on stdin/stdout
 * (the default) or on a listener (`--listen unix://…|ws://…|wss://…`). The host loads in
 * the background (`lazy-host.ts`) while the server starts reading; `initialize` is
 * answered once it has loaded, so the first thread/start, list or read after the
 * handshake runs at once instead of waiting for the load.
 */
import { keepConsoleOffStdout, type ServeListenerOptions, serveStdio } from "@knightcode/app-server";
import type { ServerOptions } from "./args.ts";
import { startLazyHost } from "./lazy-host.ts";

/** Runs the server until shutdown ends the process; a listener that cannot start exits 2 with the reason. */
export async function runAppServer(
  options: ServerOptions,
  listener: Pick<ServeListenerOptions, "staticAssets" | "onListening"> = {},
): Promise<void> {
  // before anything loads that might log: stdout is the protocol's
  keepConsoleOffStdout();
  const { sandbox, listen, ...rest } = options;
  const { parseListenAddress, checkListenConfig, serveListener } = await import("@knightcode/app-server");
  let address: ReturnType<typeof parseListenAddress> = { kind: "stdio" };
  try {
    if (listen !== undefined) {
      address = parseListenAddress(listen.url);
      if (address.kind === "stdio" && (listen.tokenFile ?? listen.tlsCert ?? listen.tlsKey) !== undefined) {
        throw new Error("stdio:// takes no --token-file or TLS");
      }
      if (address.kind !== "stdio") {
        checkListenConfig({
          address,
          ...(listen.tokenFile === undefined ? {} : { tokenFile: listen.tokenFile }),
          ...(listen.tlsCert === undefined ? {} : { tlsCertFile: listen.tlsCert }),
          ...(listen.tlsKey === undefined ? {} : { tlsKeyFile: listen.tlsKey }),
        });
      }
    }
  } catch (error) {
    refuse(error);
  }
  const host = startLazyHost({
    cwd: process.cwd(),
    ...rest,
    ...(sandbox === "tools" ? { sandbox: true } : {}),
  });
  const serverOptions = { ...host.serverOptions, ready: host.loaded, onShutdown: host.dispose };
  if (address.kind === "stdio" || listen === undefined) {
    // `initialize` is answered once the host has loaded: the client's next requests need it
    await serveStdio(serverOptions);
    return;
  }
  const { resolveAgentDir } = await import("@knightcode/config");
  try {
    await serveListener({
      ...serverOptions,
      ...listener,
      address,
      agentDir: resolveAgentDir(process.env),
      allowOrigins: listen.allowOrigins,
      ...(listen.tokenFile === undefined ? {} : { tokenFile: listen.tokenFile }),
      ...(listen.tlsCert === undefined ? {} : { tlsCertFile: listen.tlsCert }),
      ...(listen.tlsKey === undefined ? {} : { tlsKeyFile: listen.tlsKey }),
    });
  } catch (error) {
    refuse(error);
  }
}

/** A listener that cannot start: the reason on stderr, exit 2 (a usage error, as a bad flag is). */
function refuse(error: unknown): never {
  process.stderr.write(`knightcode app-server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
