/**
 * The app server: many connections over any transports, one ThreadManager behind them.
 * It validates and routes requests, delivers the manager's events honouring each
 * connection's opt-outs, asks clients the manager's questions (approvals), bounds
 * large values, and shuts down in the order the spec gives.
 */

import { homedir } from "node:os";
import type {
  ExtensionRequestDialogResult,
  ItemToolCallRequestApprovalResult,
  ServerDiagnosticsResult,
  Transport,
} from "@knightcode/app-server-protocol";
import { validateServerRequest } from "@knightcode/app-server-protocol";
import type { LiveComponentSurface } from "@knightcode/extensions";
import type { OutgoingRequest, ThreadManagerApi } from "@knightcode/thread-manager";
import { Connection, type ConnectionHost } from "./connection.ts";
import { createFileSearch, type FileSearchOptions } from "./file-search.ts";
import { HANDLERS, type HandlerContext, type RequestInfo } from "./handlers.ts";
import { createIdleCollector, type IdleCollectorOptions } from "./idle-collector.ts";
import { LargeValues } from "./large-values.ts";
import { createPayloadSpool, type PayloadSpoolOptions } from "./payload-spool.ts";
import type { AccountPort, ConfigPort } from "./ports.ts";
import { logLine } from "./stderr-log.ts";

/** After this long, unfinished accepted requests are answered `shuttingDown`. */
export const SHUTDOWN_ANSWER_MS = 9_000;

/** Options for {@link createAppServer}. */
export interface AppServerOptions {
  threads: ThreadManagerApi;
  config?: ConfigPort;
  accounts?: AccountPort;
  fileSearch?: FileSearchOptions;
  spool?: PayloadSpoolOptions;
  serverInfo?: { name: string; version: string };
  /** Milliseconds before shutdown answers unfinished requests itself. */
  shutdownAnswerMs?: number;
  /** Accepted, unanswered requests per connection before `overloaded` (default 4096). */
  maxRequestsInFlight?: number;
  /** The collection after a turn once the server is quiet; `false` turns it off. */
  idleCollect?: IdleCollectorOptions | false;
  /**
   * Settles when the server can serve what follows the handshake (the thread host
   * loading in the background): `initialize` is answered once it has, so the first
   * request after it does not wait for the load. A rejection still answers (requests
   * then report the failure). Absent: `initialize` is answered at once.
   */
  ready?: Promise<unknown>;
}

/** Per-connection options. */
export interface ConnectOptions {
  /** Terminal in-process clients get terminal defaults (`fullAccess`). */
  clientKind?: "desktop" | "terminal";
  /**
   * A client that may come back on a new connection (a listener's WebSocket or socket):
   * when it goes, the approvals and dialogs it was asked stay pending for the thread's
   * next subscriber instead of being cancelled.
   */
  reconnectable?: boolean;
  /**
   * A same-process client's component surface (the terminal agent): extensions' pi-tui
   * components (`setFooter`, `custom()`, component widgets) are handed to it as live objects.
   * Only an in-process connection can have one.
   */
  components?: LiveComponentSurface;
}

/** A running server. */
export interface AppServer {
  /** Serves one more connection over `transport` and starts it. */
  connect(transport: Transport, options?: ConnectOptions): Promise<Connection>;
  /**
   * Shuts down: refuses new requests, stops file searches and logins, unloads every
   * thread, then waits for accepted requests (answering leftovers `shuttingDown` after
   * nine seconds) and closes every connection.
   */
  shutdown(): Promise<void>;
  diagnostics(): ServerDiagnosticsResult;
  /** Live connections, for hosts and tests. */
  readonly connections: ReadonlySet<Connection>;
}

const OS_NAMES = new Set(["win32", "darwin", "linux"]);

/** Creates a server around a ThreadManager; nothing listens until `connect`. */
export function createAppServer(options: AppServerOptions): AppServer {
  const started = performance.now();
  const threads = options.threads;
  const spool = createPayloadSpool(options.spool);
  const large = new LargeValues(spool);
  const fileSearch = createFileSearch(options.fileSearch);
  const connections = new Map<string, Connection>();
  const surfaces = new Map<string, LiveComponentSurface>();
  const live = new Set<Connection>();
  const serverInfo = options.serverInfo ?? { name: "knightcode-app-server", version: "0.1.0" };
  let nextConnection = 1;
  let shuttingDown: Promise<void> | undefined;
  const collector = options.idleCollect === false ? undefined : createIdleCollector(options.idleCollect);

  function diagnostics(): ServerDiagnosticsResult {
    const memory = process.memoryUsage();
    const manager = threads.diagnostics();
    const payload = spool.stats();
    return {
      rssBytes: memory.rss,
      heapBytes: memory.heapUsed,
      loadedThreads: manager.loadedThreads,
      loadingThreads: manager.loadingThreads,
      payloadFiles: payload.files,
      payloadBytes: payload.bytes,
      inactiveFactories: manager.inactiveFactories,
      uptimeMs: performance.now() - started,
      listingFilesOpened: manager.listingFilesOpened,
      listingBytesScanned: manager.listingBytesScanned,
    };
  }

  // per thread, how many queue updates went out: a resume's follow-up queue must not override a newer one
  const queueUpdates = new Map<string, number>();

  const context: HandlerContext = {
    threads,
    config: options.config,
    accounts: options.accounts,
    fileSearch,
    spool,
    large,
    diagnostics,
    broadcast(notification) {
      for (const connection of connections.values()) connection.notify(notification);
    },
    queueUpdates: (threadId) => queueUpdates.get(threadId) ?? 0,
  };

  const host: ConnectionHost = {
    dispatch(connection, method, params, id) {
      const handler = HANDLERS[method as keyof typeof HANDLERS] as
        | ((p: unknown, c: unknown, ctx: HandlerContext, request: RequestInfo) => Promise<unknown>)
        | undefined;
      if (handler === undefined) return Promise.reject(new Error(`no handler for ${method}`));
      collector?.activity();
      const caller = { connectionId: connection.id, clientKind: connection.clientKind };
      try {
        return handler(params, caller, context, {
          id,
          notify: (notification) => connection.notify(notification),
        });
      } catch (error) {
        return Promise.reject(error);
      }
    },
    initializeResult: () => ({
      serverInfo,
      platform: {
        os: OS_NAMES.has(process.platform) ? process.platform : "linux",
        arch: process.arch,
        homeDir: homedir(),
        cwd: process.cwd(),
      },
    }),
    ready: () => options.ready,
    isShuttingDown: () => shuttingDown !== undefined,
    ...(options.maxRequestsInFlight === undefined
      ? {}
      : { maxRequestsInFlight: options.maxRequestsInFlight }),
    connectionClosed(connection) {
      surfaces.delete(connection.id);
      if (!connections.delete(connection.id)) return;
      live.delete(connection);
      fileSearch.cancelOwner(connection.id);
      threads.connectionClosed(
        connection.id,
        connection.reconnectable ? { keepPendingRequests: true } : undefined,
      );
    },
  };

  const unsubscribe = threads.onEvent((event) => {
    if (collector !== undefined) {
      const method = event.notification.method;
      if (method === "thread/turn/completed") collector.workEnded();
      else if (method === "item/agentMessage/delta" || method === "item/reasoning/delta") {
        // optional chaining: a malformed event must not stop delivery
        collector.streamed(event.notification.params?.delta?.length ?? 0);
      } else collector.activity();
    }
    if (event.notification.method === "turn/queue/updated") {
      const threadId = event.notification.params?.threadId;
      queueUpdates.set(threadId, (queueUpdates.get(threadId) ?? 0) + 1);
    } else if (
      event.notification.method === "thread/status/changed" &&
      // optional chaining: a malformed event must not stop delivery
      event.notification.params?.status?.type === "notLoaded"
    ) {
      // an unloaded thread has no queue; its count is not needed any more
      queueUpdates.delete(event.notification.params.threadId);
    }
    if (connections.size === 0) return;
    const notification = large.notification(event.notification);
    if (event.audience === "everyone") {
      for (const connection of connections.values()) connection.notify(notification, event.seq);
    } else {
      for (const id of event.connectionIds) connections.get(id)?.notify(notification, event.seq);
    }
  });

  threads.attachServerRequests({
    requestApproval(connectionId, params): OutgoingRequest<ItemToolCallRequestApprovalResult> {
      const connection = connections.get(connectionId);
      if (connection === undefined || connection.isClosed) {
        const response = Promise.reject(new Error(`connection ${connectionId} is gone`));
        response.catch(() => {});
        return { response, cancel: () => {} };
      }
      const sent = connection.request(
        "item/toolCall/requestApproval",
        large.approval(params),
        params.threadId,
      );
      const response = sent.response.then((value) => {
        const checked = validateServerRequest("item/toolCall/requestApproval", "result", value);
        // a malformed answer never grants anything
        return checked?.ok
          ? (checked.value as ItemToolCallRequestApprovalResult)
          : { decision: "decline" as const };
      });
      // the manager may stop listening after cancel; the rejection must not go unhandled
      response.catch(() => {});
      return { response, cancel: () => connection.cancelRequest(sent.id) };
    },
    requestExtensionDialog(connectionId, params): OutgoingRequest<ExtensionRequestDialogResult> {
      const connection = connections.get(connectionId);
      if (connection === undefined || connection.isClosed) {
        const response = Promise.reject(new Error(`connection ${connectionId} is gone`));
        response.catch(() => {});
        return { response, cancel: () => {} };
      }
      const sent = connection.request("extension/requestDialog", params, params.threadId);
      const response = sent.response.then((value) => {
        const checked = validateServerRequest("extension/requestDialog", "result", value);
        // a malformed answer is no answer
        return checked?.ok ? (checked.value as ExtensionRequestDialogResult) : { value: null };
      });
      response.catch(() => {});
      return { response, cancel: () => connection.cancelRequest(sent.id) };
    },
    componentSurface: (connectionId) => surfaces.get(connectionId),
    showsExtensionDialogs(connectionId) {
      const connection = connections.get(connectionId);
      return connection !== undefined && !connection.isClosed && connection.showsExtensionDialogs;
    },
    outputReady(connectionIds) {
      // only transports with a pipe behind them (stdio) push back; in-memory ones never wait.
      // Asked after every streamed event, so the common case allocates nothing.
      let first: Promise<void> | undefined;
      let all: Promise<void>[] | undefined;
      for (const id of connectionIds) {
        const transport = connections.get(id)?.transport as { outputReady?: () => Promise<void> | undefined };
        const wait = transport?.outputReady?.();
        if (wait === undefined) continue;
        if (first === undefined) first = wait;
        else {
          all ??= [first];
          all.push(wait);
        }
      }
      return all === undefined ? first : Promise.all(all).then(() => undefined);
    },
  });

  async function shutdown(): Promise<void> {
    const all = [...connections.values()];
    for (const connection of all) {
      (connection.transport as { stopReading?: () => void }).stopReading?.();
    }
    fileSearch.shutdown();
    options.accounts?.cancelPendingLogins();
    const answerMs = options.shutdownAnswerMs ?? SHUTDOWN_ANSWER_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), answerMs);
    });
    const unloaded = threads.closeAll().catch((error: unknown) => {
      logLine(`knightcode: unloading threads failed: ${String(error)}\n`);
    });
    const outcome = await Promise.race([
      Promise.all([unloaded, ...all.map((c) => c.settled())]).then(() => "done" as const),
      deadline,
    ]);
    clearTimeout(timer);
    if (outcome === "late") {
      for (const connection of all) {
        connection.answerUnfinished("shuttingDown", "the server shut down before this request finished");
      }
    }
    unsubscribe();
    collector?.dispose();
    spool.dispose();
  }

  return {
    async connect(transport, connectOptions = {}) {
      if (shuttingDown !== undefined) throw new Error("the server is shutting down");
      const connection = new Connection(
        `c${nextConnection++}`,
        connectOptions.clientKind ?? "desktop",
        transport,
        host,
        connectOptions.reconnectable === true,
      );
      connections.set(connection.id, connection);
      if (connectOptions.components) surfaces.set(connection.id, connectOptions.components);
      live.add(connection);
      await transport.start();
      return connection;
    },
    shutdown() {
      shuttingDown ??= shutdown();
      return shuttingDown;
    },
    diagnostics,
    connections: live,
  };
}
