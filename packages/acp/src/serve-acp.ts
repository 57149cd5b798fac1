/**
 * `knightcode acp`'s loop: an in-process app server (desktop caller) behind the ACP agent
 * on newline-delimited JSON over stdin/stdout. The process ends when stdin closes.
 */
import { type AppServerOptions, createInProcessClient } from "@knightcode/app-server";
import { createAcpAgent } from "./acp-agent.ts";
import { acpStdioStream, type LineSink } from "./stdio-stream.ts";

/** Options for {@link serveAcp}. */
export interface ServeAcpOptions {
  /** The app server behind the agent (its ThreadManager, config, accounts). */
  server: AppServerOptions;
  version: string;
  input: ReadableStream<Uint8Array>;
  /** Where ACP lines go; stdout in the `knightcode acp` process. */
  output: LineSink;
  log?(message: string): void;
}

/** Serves one ACP connection; resolves after the input ended and the server shut down. */
export async function serveAcp(options: ServeAcpOptions): Promise<void> {
  const inProcess = await createInProcessClient({
    ...options.server,
    clientKind: "desktop",
    clientInfo: { name: "knightcode-acp", version: options.version },
  });
  const app = createAcpAgent({
    server: inProcess.client,
    version: options.version,
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  const connection = app.connect(acpStdioStream(options.input, options.output));
  await connection.closed;
  await inProcess.close();
}
