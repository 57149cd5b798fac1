/**
 * `knightcode app-server`: the host process around the server's stdio loop. The host
 * (ThreadManager, model and agent layers, settings and accounts) loads in the
 * background, so `initialize` is answered before it is ready; requests that need it wait.
 */
import { resolve } from "node:path";
import {
  type AccountPort,
  type ConfigPort,
  createLazyThreadManager,
  keepConsoleOffStdout,
  serveStdio,
} from "@knightcode/app-server";

/** Runs the server on stdin/stdout until shutdown ends the process. */
export async function runAppServer(options: { extensions: string[]; sessionDir?: string }): Promise<void> {
  // before anything loads that might log: stdout is the protocol's
  keepConsoleOffStdout();
  const cwd = process.cwd();
  const host = import("@knightcode/app-server/host").then(({ createServerHost }) =>
    createServerHost({
      extensionPaths: options.extensions.map((path) => resolve(cwd, path)),
      ...(options.sessionDir === undefined ? {} : { sessionDir: resolve(cwd, options.sessionDir) }),
    }),
  );
  const config: ConfigPort = {
    read: async (params) => (await host).config.read(params),
    write: async (params) => (await host).config.write(params),
    readTrust: async (params) => (await host).config.readTrust(params),
    setTrust: async (params) => (await host).config.setTrust(params),
  };
  const accounts: AccountPort = {
    read: async () => (await host).accounts.read(),
    loginApiKey: async (params) => (await host).accounts.loginApiKey(params),
    logout: async (params) => (await host).accounts.logout(params),
    // API-key logins finish inside their request; there is no flow left to cancel
    cancelPendingLogins: () => {},
  };
  const fdOverride = process.env.KNIGHTCODE_FD_PATH;
  await serveStdio({
    threads: createLazyThreadManager(async () => (await host).threads),
    config,
    accounts,
    serverInfo: { name: "knightcode-app-server", version: "0.1.0" },
    ...(fdOverride === undefined ? {} : { fileSearch: { fdCandidates: [fdOverride] } }),
    onShutdown: async () => (await host).dispose(),
  });
}
