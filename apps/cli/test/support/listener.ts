/** A `knightcode app-server --listen` child for the terminal's `--remote` tests, on the mock model. */
import { type ServerChild, spawnServerChild } from "@knightcode/testkit";
import type { MockedAgent } from "./cli-run.ts";

/** A running listener and what a client needs to attach. */
export interface ListenerChild extends AsyncDisposable {
  url: string;
  token: string | undefined;
  server: ServerChild;
}

/** Starts the server in the agent's project, on `listen` (default an ephemeral loopback ws:// port). */
export async function startListenerChild(
  env: MockedAgent,
  listen = "ws://127.0.0.1:0",
  /** More `app-server` flags (`--replay-notifications 2`). */
  flags: readonly string[] = [],
): Promise<ListenerChild> {
  const server = spawnServerChild(["--listen", listen, ...flags], {
    cwd: env.agent.cwd,
    env: { ...process.env, ...env.env },
  });
  const { url, token } = await server.listening();
  return {
    url,
    token,
    server,
    async [Symbol.asyncDispose]() {
      server.child.kill("SIGTERM");
      await server.child.exited;
    },
  };
}
