/**
 * `knightcode acp`: the Agent Client Protocol on stdin/stdout, over the same host the app
 * server uses. The host loads in the background so `initialize` is answered at once.
 */
import { resolve } from "node:path";
import { serveAcp } from "@knightcode/acp";
import {
  type AccountPort,
  type ConfigPort,
  createLazyThreadManager,
  keepConsoleOffStdout,
} from "@knightcode/app-server";

const VERSION = "0.1.0";

/** Serves ACP until stdin closes; resolves with the exit code. */
export async function runAcp(options: { sessionDir?: string }): Promise<number> {
  // before anything loads that might log: stdout carries ACP messages only
  keepConsoleOffStdout();
  const log = (message: string) => process.stderr.write(`knightcode acp: ${message}\n`);
  const host = import("@knightcode/app-server/host").then(({ createServerHost }) =>
    createServerHost(
      options.sessionDir === undefined ? {} : { sessionDir: resolve(process.cwd(), options.sessionDir) },
    ),
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
    cancelPendingLogins: () => {},
  };
  try {
    await serveAcp({
      server: {
        threads: createLazyThreadManager(async () => (await host).threads),
        config,
        accounts,
        serverInfo: { name: "knightcode-acp", version: VERSION },
      },
      version: VERSION,
      input: Bun.stdin.stream(),
      output: process.stdout,
      log,
    });
    await (await host).dispose();
    return 0;
  } catch (error) {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}
