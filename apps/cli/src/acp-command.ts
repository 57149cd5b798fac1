/**
 * `knightcode acp`: the Agent Client Protocol on stdin/stdout, over the same host the app
 * server uses (`lazy-host.ts`), so `initialize` is answered before the host has loaded.
 */
import { serveAcp } from "@knightcode/acp";
import { keepConsoleOffStdout } from "@knightcode/app-server";
import packageJson from "../package.json" with { type: "json" };
import type { ServerOptions } from "./args.ts";
import { startLazyHost } from "./lazy-host.ts";

/** Serves ACP until stdin closes; resolves with the exit code. */
export async function runAcp(options: ServerOptions): Promise<number> {
  // before anything loads that might log: stdout carries ACP messages only
  keepConsoleOffStdout();
  const log = (message: string) => process.stderr.write(`knightcode acp: ${message}\n`);
  const { sandbox, ...rest } = options;
  const host = startLazyHost({
    cwd: process.cwd(),
    ...rest,
    ...(sandbox === "tools" ? { sandbox: true } : {}),
  });
  try {
    await serveAcp({
      server: { ...host.serverOptions, serverInfo: { name: "knightcode-acp", version: packageJson.version } },
      version: packageJson.version,
      input: Bun.stdin.stream(),
      output: process.stdout,
      log,
    });
    await host.dispose();
    return 0;
  } catch (error) {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}
