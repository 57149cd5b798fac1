/**
 * A ThreadManager that loads in the background. The model layer, the agent and the
 * manager take most of a cold start to import; the server can answer `initialize`
 * before they are ready, and requests that need them simply wait for the load.
 */
import type {
  ServerRequestPort,
  ThreadManagerApi,
  ThreadManagerDiagnostics,
  ThreadManagerEvent,
} from "@knightcode/thread-manager";
import { logLine } from "./stderr-log.ts";

/** Wraps `load()` (started at once) in the ThreadManager contract. */
export function createLazyThreadManager(load: () => Promise<ThreadManagerApi>): ThreadManagerApi {
  const listeners = new Set<(event: ThreadManagerEvent) => void>();
  let port: ServerRequestPort | undefined;
  let inner: ThreadManagerApi | undefined;
  const closedBeforeLoad: [string, { keepPendingRequests?: boolean } | undefined][] = [];
  const ready = load().then((manager) => {
    inner = manager;
    manager.onEvent((event) => {
      for (const listener of listeners) listener(event);
    });
    if (port !== undefined) manager.attachServerRequests(port);
    for (const [id, options] of closedBeforeLoad.splice(0)) manager.connectionClosed(id, options);
    return manager;
  });
  // a failed load surfaces on each request that needs the manager
  ready.catch((error: unknown) => {
    logLine(`knightcode: loading the thread manager failed: ${String(error)}\n`);
  });

  const call =
    <K extends keyof ThreadManagerApi>(name: K) =>
    async (params: unknown, caller: unknown): Promise<unknown> => {
      const manager = await ready;
      return (manager[name] as (p: unknown, c: unknown) => Promise<unknown>).call(manager, params, caller);
    };

  const idle: ThreadManagerDiagnostics = {
    loadedThreads: 0,
    loadingThreads: 0,
    inactiveFactories: 0,
    listingFilesOpened: 0,
    listingBytesScanned: 0,
  };

  return {
    startThread: call("startThread"),
    resumeThread: call("resumeThread"),
    forkThread: call("forkThread"),
    readThread: call("readThread"),
    listThreads: call("listThreads"),
    unsubscribe: call("unsubscribe"),
    archiveThread: call("archiveThread"),
    unarchiveThread: call("unarchiveThread"),
    deleteThread: call("deleteThread"),
    updateSettings: call("updateSettings"),
    listModels: call("listModels"),
    listCommands: call("listCommands"),
    completeCommand: call("completeCommand"),
    readContext: call("readContext"),
    listMcpServers: call("listMcpServers"),
    readMcpResource: call("readMcpResource"),
    startTurn: call("startTurn"),
    steerTurn: call("steerTurn"),
    interruptTurn: call("interruptTurn"),
    addToQueue: call("addToQueue"),
    removeFromQueue: call("removeFromQueue"),
    runShell: call("runShell"),
    diffThread: call("diffThread"),
    mergeWorktree: call("mergeWorktree"),
    removeWorktree: call("removeWorktree"),
    listWorktrees: call("listWorktrees"),
    undoTurn: call("undoTurn"),
    readTree: call("readTree"),
    navigateTree: call("navigateTree"),
    attachServerRequests(value) {
      port = value;
      inner?.attachServerRequests(value);
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    connectionClosed(connectionId, options) {
      if (inner === undefined) closedBeforeLoad.push([connectionId, options]);
      else inner.connectionClosed(connectionId, options);
    },
    diagnostics: () => inner?.diagnostics() ?? idle,
    closeAll: async () => {
      const manager = await ready.catch(() => undefined);
      await manager?.closeAll();
    },
  } as ThreadManagerApi;
}
