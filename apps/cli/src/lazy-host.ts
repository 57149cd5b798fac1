/**
 * The server host (ThreadManager, model and agent layers, settings and accounts) loaded in
 * the background, behind the ports a server takes. `knightcode app-server` and the
 * terminal agent both build their server from it, so either can answer (or draw) before
 * the heavy modules have loaded; requests that need them wait.
 */
import { resolve } from "node:path";
import {
  type AccountPort,
  type AppServerOptions,
  type ConfigPort,
  createLazyThreadManager,
} from "@knightcode/app-server";
import type { ExtensionFlagArg } from "@knightcode/app-server-protocol";
import { insideProcessSandbox } from "./process-sandbox.ts";
import { sandboxHelperCommand } from "./self-command.ts";

/** Where the host reads extensions and keeps sessions; paths relative to `cwd`. */
export interface LazyHostOptions {
  cwd: string;
  extensions: readonly string[];
  /** Flags no built-in option took, for the extensions (`--plan`, `--ssh host`). */
  extensionFlags?: readonly ExtensionFlagArg[];
  sessionDir?: string;
  /** `--sandbox`: each thread's tools run in its own bubblewrap sandbox. */
  sandbox?: boolean;
  /** How much of each thread's stream is kept for reconnects (`--replay-notifications`, `--replay-bytes`). */
  replayLimits?: { maxNotifications?: number; maxBytes?: number };
}

/** Server options over a host that is still loading, plus its disposal. */
export interface LazyHost {
  serverOptions: AppServerOptions;
  /** Settles when the host has loaded (or failed to). */
  loaded: Promise<unknown>;
  dispose(): Promise<void>;
}

/** Starts loading the host now and returns the server options that wait for it. */
export function startLazyHost(options: LazyHostOptions): LazyHost {
  const host = import("@knightcode/app-server/host").then(({ createServerHost }) =>
    createServerHost({
      extensionPaths: options.extensions.map((path) => resolve(options.cwd, path)),
      ...(options.extensionFlags === undefined || options.extensionFlags.length === 0
        ? {}
        : { extensionFlags: [...options.extensionFlags] }),
      ...(options.sessionDir === undefined ? {} : { sessionDir: resolve(options.cwd, options.sessionDir) }),
      ...(options.sandbox === true ? { sandbox: true } : {}),
      ...(options.replayLimits === undefined ? {} : { replayLimits: options.replayLimits }),
      ...(insideProcessSandbox() ? { processSandbox: true } : {}),
      // settings may turn the sandbox on for a thread, so the helper is always given
      sandboxHelper: sandboxHelperCommand(),
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
  return {
    serverOptions: {
      threads: createLazyThreadManager(async () => (await host).threads),
      config,
      accounts,
      serverInfo: { name: "knightcode-app-server", version: "0.1.0" },
      ...(fdOverride === undefined ? {} : { fileSearch: { fdCandidates: [fdOverride] } }),
    },
    loaded: host,
    dispose: async () => (await host).dispose(),
  };
}
