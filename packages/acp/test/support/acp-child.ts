/**
 * A real `knightcode acp` child driven by the ACP SDK's client side over its pipes,
 * against the testkit's mock model. Every line the agent writes is kept and checked
 * against the SDK's schema, and anything on stdout that is not an ACP message is kept
 * apart; a test can assert both, and disposing the child fails the test on either, so
 * no message of any test goes unchecked (those written at shutdown included).
 */
import {
  type ClientConnection,
  type ClientContext,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import {
  knightcodeArgv,
  type MockModelServer,
  mockDefaultAgentDir,
  startMockModelServer,
  type TempAgentDir,
} from "@knightcode/testkit";
import { agentMessageProblems } from "./acp-schema.ts";

const WAIT_MS = 20_000;

/** One line the agent wrote, parsed, with its position among everything it wrote. */
export interface AgentLine {
  seq: number;
  message: Record<string, unknown>;
}

/** A permission request the test answers. */
export type PermissionHandler = (
  request: RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<RequestPermissionResponse> | RequestPermissionResponse;

/** A model and agent dir shared by the processes of one test. */
export interface AcpWorld extends AsyncDisposable {
  mock: MockModelServer;
  agent: TempAgentDir;
}

/** Starts the mock model and an agent dir whose default model is the mock. */
export async function acpWorld(): Promise<AcpWorld> {
  const mock = await startMockModelServer();
  const agent = await mockDefaultAgentDir(mock);
  return {
    mock,
    agent,
    async [Symbol.asyncDispose]() {
      await agent[Symbol.asyncDispose]();
      await mock[Symbol.asyncDispose]();
    },
  };
}

/** A running `knightcode acp` child with an SDK client connected to it. */
export interface AcpChild extends AsyncDisposable {
  agent: ClientContext;
  connection: ClientConnection;
  /** Every message the agent wrote so far. */
  lines: AgentLine[];
  /** `session/update` notifications so far, in order. */
  updates: SessionNotification[];
  /** Schema problems of everything the agent wrote so far. */
  schemaProblems(): string[];
  /** Lines on stdout that were not ACP messages. */
  foreign: string[];
  stderr(): string;
  /** How permission requests are answered (default: the first allow option). */
  onPermission(handler: PermissionHandler): void;
  permissionRequests: RequestPermissionRequest[];
  /** Resolves with the first update (past or future) that matches. */
  waitForUpdate(match: (update: SessionUpdate, sessionId: string) => boolean): Promise<SessionUpdate>;
  /** Updates of one session of one kind. */
  updatesOf<K extends SessionUpdate["sessionUpdate"]>(
    sessionId: string,
    kind: K,
  ): Extract<SessionUpdate, { sessionUpdate: K }>[];
  /** Closes stdin and resolves with the exit code once stdout is drained. */
  close(): Promise<number>;
}

function lineReader(onLine: (text: string) => void) {
  const decoder = new TextDecoder();
  let rest = "";
  return {
    push(chunk: Uint8Array) {
      rest += decoder.decode(chunk, { stream: true });
      const parts = rest.split("\n");
      rest = parts.pop() ?? "";
      for (const part of parts) if (part !== "") onLine(part);
    },
    end() {
      rest += decoder.decode();
      if (rest !== "") onLine(rest);
      rest = "";
    },
  };
}

/** Spawns `knightcode acp` in `world` and initializes it unless told not to. */
export async function startAcp(
  world: AcpWorld,
  options: { args?: string[]; cwd?: string; initialize?: boolean; env?: Record<string, string> } = {},
): Promise<AcpChild> {
  const child = Bun.spawn(knightcodeArgv(["acp", ...(options.args ?? [])]), {
    // the process cwd must never matter: sessions carry their own
    cwd: options.cwd ?? world.agent.root,
    env: { ...process.env, ...world.agent.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", ...options.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();

  const sentMethods = new Map<unknown, string>();
  const lines: AgentLine[] = [];
  const foreign: string[] = [];
  const updates: SessionNotification[] = [];
  const waiters: { match: (u: SessionUpdate, s: string) => boolean; resolve: (u: SessionUpdate) => void }[] =
    [];
  let seq = 0;

  const fromAgent = lineReader((text) => {
    try {
      const message = JSON.parse(text) as Record<string, unknown>;
      if (typeof message !== "object" || message === null || message.jsonrpc !== "2.0") throw new Error();
      lines.push({ seq: seq++, message });
    } catch {
      foreign.push(text);
    }
  });
  const [forClient, forLog] = child.stdout.tee();
  const logged = (async () => {
    for await (const chunk of forLog) fromAgent.push(chunk);
    fromAgent.end();
  })();

  const toAgent = lineReader((text) => {
    const message = JSON.parse(text) as Record<string, unknown>;
    if (typeof message.method === "string" && "id" in message) sentMethods.set(message.id, message.method);
  });
  const output = new WritableStream<Uint8Array>({
    async write(chunk) {
      toAgent.push(chunk);
      child.stdin.write(chunk);
      await child.stdin.flush();
    },
    close() {
      child.stdin.end();
    },
  });

  const permissionRequests: RequestPermissionRequest[] = [];
  let permission: PermissionHandler = (request) => {
    const allow = request.options.find((o) => o.kind === "allow_once");
    return allow
      ? { outcome: { outcome: "selected", optionId: allow.optionId } }
      : { outcome: { outcome: "cancelled" } };
  };

  const app = client({ name: "acp-test" })
    .onRequest("session/request_permission", async ({ params, signal }) => {
      permissionRequests.push(params);
      return permission(params, signal);
    })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
      for (const waiter of [...waiters]) {
        if (!waiter.match(params.update, params.sessionId)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(params.update);
      }
    });
  const connection = app.connect(ndJsonStream(output, forClient));

  let exited: Promise<number> | undefined;
  const close = () => {
    exited ??= (async () => {
      try {
        child.stdin.end();
      } catch {
        // already closed
      }
      const code = await child.exited;
      await logged;
      return code;
    })();
    return exited;
  };

  const acp: AcpChild = {
    agent: connection.agent,
    connection,
    lines,
    updates,
    foreign,
    stderr: () => stderr,
    permissionRequests,
    onPermission(handler) {
      permission = handler;
    },
    schemaProblems: () =>
      lines.flatMap((line) => agentMessageProblems(line.message, (id) => sentMethods.get(id))),
    waitForUpdate(match) {
      for (const n of updates) if (match(n.update, n.sessionId)) return Promise.resolve(n.update);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching update within ${WAIT_MS} ms`)), WAIT_MS);
        waiters.push({
          match,
          resolve: (u) => {
            clearTimeout(timer);
            resolve(u);
          },
        });
      });
    },
    updatesOf(sessionId, kind) {
      return updates
        .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind)
        .map((n) => n.update) as never;
    },
    close,
    /** Closes the child, then fails the test if anything it wrote broke the schema or was not ACP. */
    async [Symbol.asyncDispose]() {
      await close();
      const problems = [
        ...acp.schemaProblems(),
        ...foreign.map((line) => `not an ACP message on stdout: ${line}`),
      ];
      if (problems.length > 0)
        throw new Error(`knightcode acp wrote invalid output:\n${problems.join("\n")}`);
    },
  };
  if (options.initialize !== false) {
    await connection.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
      clientInfo: { name: "acp-test", version: "1" },
    });
  }
  return acp;
}

/** The seq of the agent's response to the request `method` the client sent with `id`. */
export function responseSeq(acp: AcpChild, predicate: (message: Record<string, unknown>) => boolean): number {
  const found = acp.lines.find((line) => !("method" in line.message) && predicate(line.message));
  if (found === undefined) throw new Error("no such response");
  return found.seq;
}
