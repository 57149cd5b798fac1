/**
 * `knightcode acp`'s loop: an in-process app server (desktop caller) behind the ACP agent
 * on newline-delimited JSON over stdin/stdout. The process ends when stdin closes.
 */
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { type AppServerOptions, createInProcessClient } from "@knightcode/app-server";
import { createAcpAgent } from "./acp-agent.ts";

/** Options for {@link serveAcp}. */
export interface ServeAcpOptions {
  /** The app server behind the agent (its ThreadManager, config, accounts). */
  server: AppServerOptions;
  version: string;
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
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
  const connection = app.connect(ndJsonStream(options.output, options.input));
  await connection.closed;
  await inProcess.close();
}

/** stdout as a web stream that resolves each write once the bytes are handed to the OS. */
export function stdoutStream(stream: NodeJS.WriteStream = process.stdout): WritableStream<Uint8Array> {
  return new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        stream.write(chunk, (error) => (error ? reject(error) : resolve()));
      }),
  });
}
