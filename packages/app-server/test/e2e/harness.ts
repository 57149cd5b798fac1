/**
 * Runs each end-to-end test on both transports: a real `knightcode app-server` child
 * process over pipes, and `createInProcessClient` against the same host assembly. The
 * model is the testkit's loopback mock, reached over real HTTP from either. The child is
 * the sources or, with `KNIGHTCODE_BIN`, the compiled binary (testkit's `knightcodeArgv`).
 */
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import {
  AppServerClient,
  classifyMessage,
  type InitializeParams,
  type ItemToolCallRequestApprovalResult,
  type Message,
  StreamTransport,
  type Transport,
  type TurnCompletedNotification,
  type Warning,
} from "@knightcode/app-server-protocol";
import {
  KNIGHTCODE_BIN,
  knightcodeArgv,
  MOCK_MODEL_ID,
  MOCK_PROVIDERS,
  type MockModelServer,
  mockModelsJson,
  startMockModelServer,
  type TempAgentDir,
  tempAgentDir,
  textReply,
  toolCallReply,
} from "@knightcode/testkit";
import { createServerHost } from "../../src/host.ts";
import { createInProcessClient } from "../../src/in-process-client.ts";
import type { AppServer } from "../../src/server.ts";

/** pi's own example extensions, as the installed `@mariozechner/pi-coding-agent` ships them. */
export const PI_EXAMPLES = realpathSync(
  join(
    import.meta.dir,
    "..",
    "..",
    "node_modules",
    "@mariozechner",
    "pi-coding-agent",
    "examples",
    "extensions",
  ),
);

/** The mock model every e2e thread uses. */
export const MOCK_MODEL = { provider: MOCK_PROVIDERS.completions, id: MOCK_MODEL_ID };

/** A new thread on the mock model in `cwd`, `fullAccess` unless said otherwise. */
export async function startThread(
  client: AppServerClient,
  cwd: string,
  approvalMode: "ask" | "autoEdit" | "fullAccess" = "fullAccess",
): Promise<{ threadId: string; path: string; warnings: Warning[] }> {
  const { thread, warnings } = await client.request("thread/start", { cwd, approvalMode, model: MOCK_MODEL });
  return { threadId: thread.id, path: thread.path!, warnings };
}

/** One running server with a first, initialized client. */
export interface E2EServer extends AsyncDisposable {
  readonly kind: "stdio" | "in-process";
  readonly client: AppServerClient;
  readonly agent: TempAgentDir;
  readonly mock: MockModelServer;
  /** A further initialized connection to the same server (in-process only: stdio has one per process). */
  connect?(init?: Partial<InitializeParams>): Promise<AppServerClient>;
  /** The server's process ID (the child's on stdio, this process's in-process). */
  readonly pid: number;
  /** Child stderr so far (stdio only). */
  stderr(): string;
  /** Sends a signal to the server process (stdio only). */
  kill?(signal: "SIGTERM" | "SIGINT" | "SIGKILL"): void;
  /** Writes raw bytes to the server's stdin (stdio only). */
  writeRaw?(bytes: string | Uint8Array): void;
  /** Shuts the server down the way its host does; resolves with the child's exit code (stdio). */
  shutdown(): Promise<number | undefined>;
  /** Sends any message, well-formed or not, on the first client's connection (bypassing the client). */
  sendRaw(message: unknown): void;
  /** Every message the server sent to the first client so far, in order. */
  received(): readonly Message[];
  /** Resolves with the first message (past or future) the server sent that matches. */
  nextMessage(match: (message: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Message>;
}

/** Collects what a server sends, with waiters for messages still to come. */
function messageLog() {
  const messages: Message[] = [];
  const waiters: { match: (m: Record<string, unknown>) => boolean; resolve: (m: Message) => void }[] = [];
  return {
    messages,
    push(message: Message): void {
      messages.push(message);
      for (const waiter of [...waiters]) {
        if (!waiter.match(message as unknown as Record<string, unknown>)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    },
    next(match: (m: Record<string, unknown>) => boolean, timeoutMs = 20_000): Promise<Message> {
      const seen = messages.find((m) => match(m as unknown as Record<string, unknown>));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error("timed out waiting for a server message")),
          timeoutMs,
        );
        waiters.push({
          match,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
      });
    },
  };
}

/**
 * Reads a child's stdout as the protocol's lines. Anything on stdout that is not a whole
 * protocol message (a stray log line, a partial line at exit) is kept in `foreign`.
 */
function readStdout(stream: ReadableStream<Uint8Array>, log: ReturnType<typeof messageLog>) {
  const foreign: string[] = [];
  const done = (async () => {
    const decoder = new TextDecoder();
    let rest = "";
    const line = (text: string): void => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        foreign.push(text);
        return;
      }
      if (classifyMessage(parsed) === null) foreign.push(text);
      else log.push(parsed as Message);
    };
    for await (const chunk of stream) {
      rest += decoder.decode(chunk, { stream: true });
      const lines = rest.split("\n");
      rest = lines.pop() ?? "";
      for (const text of lines) line(text);
    }
    rest += decoder.decode();
    if (rest !== "") foreign.push(rest);
  })();
  return { foreign, done };
}

/** Options for a target's start. */
export interface StartOptions {
  init?: Partial<InitializeParams>;
  env?: Record<string, string>;
  /** Extra `knightcode app-server` arguments (stdio). */
  args?: string[];
  /** The server process's working directory (stdio; the project dir by default). */
  cwd?: string;
  /** Leave the handshake to the test. */
  skipInitialize?: boolean;
  /** Environment variables that need the mock's address (stdio: the child's environment). */
  envFromMock?: (mock: MockModelServer) => Record<string, string>;
  /** The agent dir's settings.json. */
  settings?: Record<string, unknown>;
  /** Extension paths (absolute): `-e` on stdio, `extensionPaths` in-process. */
  extensions?: string[];
}

/** A transport under test. */
export interface Target {
  readonly name: "stdio" | "in-process";
  start(options?: StartOptions): Promise<E2EServer>;
}

async function environment(options: StartOptions): Promise<{ agent: TempAgentDir; mock: MockModelServer }> {
  const mock = await startMockModelServer();
  const agent = await tempAgentDir({
    models: mockModelsJson(mock),
    ...(options.settings ? { settings: options.settings } : {}),
  });
  return { agent, mock };
}

function initParams(init?: Partial<InitializeParams>): InitializeParams {
  return { clientInfo: { name: "e2e", version: "1" }, ...init };
}

const stdio: Target = {
  name: "stdio",
  async start(options = {}) {
    const { agent, mock } = await environment(options);
    const extensionArgs = (options.extensions ?? []).flatMap((path) => ["-e", path]);
    const child = Bun.spawn(knightcodeArgv(["app-server", ...extensionArgs, ...(options.args ?? [])]), {
      cwd: options.cwd ?? agent.cwd,
      env: { ...process.env, ...agent.env, ...options.env, ...options.envFromMock?.(mock) },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    let stderr = "";
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
    })();
    // one branch for the client, one to prove that stdout carries protocol messages only
    const [forClient, forCheck] = child.stdout.tee();
    const log = messageLog();
    const stdout = readStdout(forCheck, log);
    const client = new AppServerClient(new StreamTransport({ readable: forClient, writable: child.stdin }));
    await client.connect();
    if (options.skipInitialize !== true) await client.initialize(initParams(options.init));
    let exited: Promise<number> | undefined;
    const shutdown = async () => {
      exited ??= (async () => {
        try {
          child.stdin.end();
        } catch {
          // already closed by the test
        }
        const code = await child.exited;
        // everything the process wrote is in `received()` once this resolves
        await stdout.done;
        return code;
      })();
      return exited;
    };
    return {
      kind: "stdio",
      pid: child.pid,
      client,
      agent,
      mock,
      stderr: () => stderr,
      kill(signal) {
        child.kill(signal);
      },
      writeRaw(bytes) {
        child.stdin.write(bytes);
        child.stdin.flush();
      },
      sendRaw(message) {
        child.stdin.write(`${JSON.stringify(message)}\n`);
        child.stdin.flush();
      },
      received: () => log.messages,
      nextMessage: (match, timeoutMs) => log.next(match, timeoutMs),
      shutdown,
      async [Symbol.asyncDispose]() {
        const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
        await shutdown();
        clearTimeout(timer);
        await stdout.done;
        await mock.close();
        await agent.remove();
        // stdout is the protocol's: every test on this target also proves nothing else went there
        if (stdout.foreign.length > 0) {
          throw new Error(
            `stdout carried non-protocol output: ${JSON.stringify(stdout.foreign.slice(0, 3))}`,
          );
        }
      },
    };
  },
};

const inProcess: Target = {
  name: "in-process",
  async start(options = {}) {
    const { agent, mock } = await environment(options);
    const host = await createServerHost({
      agentDir: agent.agentDir,
      ...(options.extensions ? { extensionPaths: options.extensions } : {}),
      env: { ...process.env, ...agent.env, ...options.env },
    });
    const fd = options.env?.KNIGHTCODE_FD_PATH;
    const first = await createInProcessClient({
      threads: host.threads,
      config: host.config,
      accounts: host.accounts,
      ...(fd === undefined ? {} : { fileSearch: { fdCandidates: [fd] } }),
      clientInfo: initParams(options.init).clientInfo,
      ...(options.skipInitialize === true ? { skipInitialize: true } : {}),
      ...(options.init?.capabilities?.optOutNotifications === undefined
        ? {}
        : { optOutNotifications: options.init.capabilities.optOutNotifications }),
      ...(options.init?.capabilities?.extensionDialogs === true ? { extensionDialogs: true } : {}),
    });
    const server: AppServer = first.server;
    // the client's side of the in-memory pair: watch everything the server sends, and send raw
    const transport = (first.client as unknown as { transport: Transport }).transport;
    const log = messageLog();
    const deliver = transport.onmessage;
    transport.onmessage = (message) => {
      log.push(message);
      deliver?.(message);
    };
    let closed: Promise<undefined> | undefined;
    const shutdown = () => {
      closed ??= first.close().then(() => undefined);
      return closed;
    };
    return {
      kind: "in-process",
      pid: process.pid,
      client: first.client,
      agent,
      mock,
      stderr: () => "",
      sendRaw(message) {
        void transport.send(message as Message).catch(() => {});
      },
      received: () => log.messages,
      nextMessage: (match, timeoutMs) => log.next(match, timeoutMs),
      async connect(init) {
        const extra = await createInProcessClient({
          threads: host.threads,
          server,
          clientInfo: initParams(init).clientInfo,
          ...(init?.capabilities?.optOutNotifications === undefined
            ? {}
            : { optOutNotifications: init.capabilities.optOutNotifications }),
          ...(init?.capabilities?.extensionDialogs === true ? { extensionDialogs: true } : {}),
        });
        return extra.client;
      },
      shutdown,
      async [Symbol.asyncDispose]() {
        await shutdown();
        await host.dispose();
        await mock.close();
        await agent.remove();
      },
    };
  },
};

/**
 * Both transports; each e2e test is written once and registered for each. Against a
 * compiled binary (`KNIGHTCODE_BIN`) only stdio: the in-process target runs the sources
 * inside the test process and never touches the binary, and the sources pass runs it.
 */
export const TARGETS: readonly Target[] = KNIGHTCODE_BIN === undefined ? [stdio, inProcess] : [stdio];

/** Resolves with the first notification of `method` matching `match`, or rejects after `timeoutMs`. */
export function nextNotification<T = unknown>(
  client: AppServerClient,
  method: string,
  match: (params: T) => boolean = () => true,
  timeoutMs = 20_000,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${method}`));
    }, timeoutMs);
    const off = client.onNotification("*", (m, params) => {
      if (m !== method || !match(params as T)) return;
      clearTimeout(timer);
      off();
      resolve(params as T);
    });
  });
}

/** The next `turn/completed` of a thread. */
export function turnCompleted(client: AppServerClient, threadId: string): Promise<TurnCompletedNotification> {
  return nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
}

/** A transcript's lines (its header first), parsed. */
export function transcriptLines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Records every notification method (and params) a client receives, in order. */
export function recordNotifications(client: AppServerClient): { method: string; params: unknown }[] {
  const seen: { method: string; params: unknown }[] = [];
  client.onNotification("*", (method, params) => {
    seen.push({ method, params });
  });
  return seen;
}

/** Awaits a rejection and returns its `code`. */
export async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return String((error as { code?: unknown }).code);
  }
  throw new Error("expected the request to fail");
}

/**
 * Starts a turn whose bash call waits for approval; resolves once the approval was asked,
 * with the running turn's ID, a way to answer it, and the turn's completion.
 */
export async function turnHeldAtApproval(server: E2EServer, threadId: string) {
  server.mock.enqueue(
    toolCallReply({ name: "bash", arguments: { command: "echo held" } }),
    textReply("done"),
  );
  const asked = Promise.withResolvers<void>();
  const answer = Promise.withResolvers<ItemToolCallRequestApprovalResult>();
  server.client.onRequest("item/toolCall/requestApproval", () => {
    asked.resolve();
    return answer.promise;
  });
  const started = nextNotification<{ threadId: string; turn: { id: string } }>(
    server.client,
    "turn/started",
    (p) => p.threadId === threadId,
  );
  const completed = nextNotification<TurnCompletedNotification>(
    server.client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
  await server.client.request("turn/start", { threadId, text: "run it" });
  const turnId = (await started).turn.id;
  await asked.promise;
  return { turnId, answer: answer.resolve, completed };
}

/** Per-test timeout: a child process start on a busy 2-core machine can take seconds. */
export const E2E_TIMEOUT = 60_000;

/** The code and message a request is refused with; fails when it succeeds. */
export async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: string; message: string };
    return { code: e.code, message: e.message };
  }
  throw new Error("expected the request to be refused");
}
