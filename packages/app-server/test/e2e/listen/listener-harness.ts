/**
 * A real `knightcode app-server --listen …` child for the listener tests: on `ws://`,
 * `wss://` (a self-signed certificate made with openssl in the agent's temp dir) or
 * `unix://`, with the testkit's mock model. The URL and token file are read from the
 * child's stderr, as a user reads them; clients connect through the protocol package's
 * own transports.
 */
import { connect as connectTcp } from "node:net";
import { join } from "node:path";
import { connect as connectTls } from "node:tls";
import {
  AppServerClient,
  type InitializeParams,
  type TokenPresentation,
  WebSocketTransport,
} from "@knightcode/app-server-protocol";
import { connectUnixSocket } from "@knightcode/app-server-protocol/unix";
import {
  type MockModelServer,
  mockModelsJson,
  type ServerChild,
  spawnServerChild,
  startMockModelServer,
  type TempAgentDir,
  tempAgentDir,
} from "@knightcode/testkit";

/** The listeners under test. */
export type ListenerKind = "ws" | "wss" | "unix";
export const LISTENER_KINDS: readonly ListenerKind[] = ["ws", "unix", "wss"];

/** One client connection to the child. */
export interface ListenerClient {
  client: AppServerClient;
  close(): Promise<void>;
  /** Resolves when the server closed this connection. */
  closed: Promise<void>;
}

/** Options for a client connection. */
export interface ConnectOptions {
  init?: Partial<InitializeParams>;
  /** The token to present; default the server's. */
  token?: string;
  tokenVia?: TokenPresentation;
  /** Skip `initialize` (the test does the handshake). */
  raw?: boolean;
}

/** A running listener child. */
export interface ListenerServer extends AsyncDisposable {
  readonly kind: ListenerKind;
  readonly url: string;
  readonly agent: TempAgentDir;
  readonly mock: MockModelServer;
  /** The token (ws/wss), read from the file the server named on stderr. */
  readonly token: string | undefined;
  readonly tokenFile: string | undefined;
  /** The PEM certificate a wss client must trust. */
  readonly ca: string | undefined;
  readonly exited: Promise<number>;
  stderr(): string;
  connect(options?: ConnectOptions): Promise<ListenerClient>;
  /** An HTTP request to the listener (ws/wss). */
  http(path: string, headers?: Record<string, string>): Promise<Response>;
  /**
   * A hand-written GET (an upgrade when `upgrade` is set) over a plain socket, for what
   * `fetch` will not send (a foreign Host, an upgrade): the status code and the raw response head and body.
   */
  raw(
    path: string,
    headers: Record<string, string>,
    upgrade?: boolean,
  ): Promise<{ status: number; text: string }>;
  kill(signal: "SIGTERM" | "SIGINT" | "SIGKILL"): void;
}

/** Makes a self-signed certificate for 127.0.0.1 and localhost in `dir`. */
export async function selfSignedCertificate(dir: string): Promise<{ cert: string; key: string }> {
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  const made = Bun.spawn(
    [
      "openssl",
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ],
    { stdout: "ignore", stderr: "pipe" },
  );
  if ((await made.exited) !== 0) throw new Error(`openssl failed: ${await new Response(made.stderr).text()}`);
  return { cert, key };
}

/** Spawns `knightcode app-server` with `args` (no --listen added) in the agent's project. */
export function spawnServer(agent: TempAgentDir, args: string[]): ServerChild {
  return spawnServerChild(args, { cwd: agent.cwd, env: { ...process.env, ...agent.env } });
}

/** Starts a listener child of `kind` on an ephemeral loopback port (or a socket in the temp dir). */
export async function startListener(
  kind: ListenerKind,
  options: { args?: string[]; env?: Record<string, string> } = {},
): Promise<ListenerServer> {
  const mock = await startMockModelServer();
  const agent = await tempAgentDir({ models: mockModelsJson(mock) });
  Object.assign(agent.env, options.env ?? {});
  let tls: { cert: string; key: string } | undefined;
  let listen: string;
  if (kind === "unix") listen = `unix://${join(agent.root, "server.sock")}`;
  else if (kind === "ws") listen = "ws://127.0.0.1:0";
  else {
    tls = await selfSignedCertificate(agent.agentDir);
    listen = "wss://127.0.0.1:0";
  }
  const args = [
    "--listen",
    listen,
    ...(tls ? ["--tls-cert", tls.cert, "--tls-key", tls.key] : []),
    ...(options.args ?? []),
  ];
  const spawned = spawnServer(agent, args);
  const { url, tokenFile, token } = await spawned.listening();
  const ca = tls === undefined ? undefined : await Bun.file(tls.cert).text();
  const httpBase = url.replace(/^ws/, "http");
  const clients: ListenerClient[] = [];

  const connect = async (connectOptions: ConnectOptions = {}): Promise<ListenerClient> => {
    const transport =
      kind === "unix"
        ? await connectUnixSocket(url.slice("unix://".length))
        : new WebSocketTransport(url, {
            ...(token === undefined ? {} : { token: connectOptions.token ?? token }),
            ...(connectOptions.tokenVia === undefined ? {} : { tokenVia: connectOptions.tokenVia }),
            ...(ca === undefined ? {} : { tls: { ca } }),
          });
    const client = new AppServerClient(transport);
    const closed = new Promise<void>((resolve) => client.onClose(() => resolve()));
    await client.connect();
    if (connectOptions.raw !== true) {
      await client.initialize({ clientInfo: { name: "listener-e2e", version: "1" }, ...connectOptions.init });
      // One round trip after `initialized`: the server takes a connection as ready (and sends it
      // broadcasts such as thread/status/changed) only once it has read that notification, so
      // without this a test's next step could race a broadcast past a client it means to reach.
      await client.request("model/list", {});
    }
    const entry = { client, close: () => transport.close(), closed };
    clients.push(entry);
    return entry;
  };

  return {
    kind,
    url,
    agent,
    mock,
    token,
    tokenFile,
    ca,
    exited: spawned.child.exited,
    stderr: spawned.stderr,
    connect,
    http: (path, headers = {}) =>
      fetch(`${httpBase}${path}`, { headers, ...(ca === undefined ? {} : { tls: { ca } }) } as RequestInit),
    raw: (path, headers, upgrade = false) => rawRequest(url, ca, path, headers, upgrade),
    kill: (signal) => spawned.child.kill(signal),
    async [Symbol.asyncDispose]() {
      for (const entry of clients) await entry.close().catch(() => {});
      const timer = setTimeout(() => spawned.child.kill("SIGKILL"), 15_000);
      spawned.child.kill("SIGTERM");
      await spawned.child.exited;
      clearTimeout(timer);
      await mock.close();
      await agent.remove();
      // stdout is the protocol's, and a listener speaks no protocol there
      const stdout = await spawned.stdout;
      if (stdout !== "") throw new Error(`a listener wrote to stdout: ${stdout.slice(0, 200)}`);
    },
  };
}

/** See `ListenerServer.raw`. */
function rawRequest(
  url: string,
  ca: string | undefined,
  path: string,
  headers: Record<string, string>,
  upgrade: boolean,
): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url.replace(/^ws/, "http"));
  const all: Record<string, string> = {
    host: `${hostname}:${port}`,
    ...(upgrade
      ? {
          upgrade: "websocket",
          connection: "Upgrade",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        }
      : { connection: "close" }),
    ...headers,
  };
  const head = `GET ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`;
  return new Promise((resolve, reject) => {
    const socket =
      ca === undefined
        ? connectTcp(Number(port), hostname)
        : connectTls({ host: hostname, port: Number(port), ca, servername: "localhost" });
    let text = "";
    const done = () => {
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    };
    socket.once(ca === undefined ? "connect" : "secureConnect", () => socket.write(head));
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      // an upgrade (101) stays open: the head is all there is to read
      if (/\r\n\r\n/.test(text) && (text.startsWith("HTTP/1.1 101") || /content-length: 0\r\n/i.test(text)))
        done();
    });
    socket.once("end", done);
    socket.once("error", reject);
  });
}
