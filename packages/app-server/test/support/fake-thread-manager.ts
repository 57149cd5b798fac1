/**
 * A small in-test implementation of the ThreadManager contract, for unit tests of the
 * server's routing, limits and shutdown. End-to-end tests use the real ThreadManager.
 */
import {
  AppServerError,
  type ItemToolCallRequestApprovalResult,
  type ServerNotification,
  type Thread,
  type ThreadReadResult,
  type Turn,
} from "@knightcode/app-server-protocol";
import type {
  Caller,
  ServerRequestPort,
  ThreadManagerApi,
  ThreadManagerEvent,
} from "@knightcode/thread-manager";

export class FakeThreadManager implements ThreadManagerApi {
  readonly listeners = new Set<(event: ThreadManagerEvent) => void>();
  port: ServerRequestPort | undefined;
  readonly threads = new Map<string, { thread: Thread; subscribers: string[] }>();
  readonly closedConnections: string[] = [];
  closeAllCalls = 0;
  /** Methods whose calls never settle (shutdown tests). */
  readonly hang = new Set<string>();
  /** The next `thread/read` answer. */
  readResult: ThreadReadResult | undefined;
  lastApproval: ItemToolCallRequestApprovalResult | Error | undefined;
  private nextId = 1;

  emit(event: ThreadManagerEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  toSubscribers(threadId: string, notification: ServerNotification): void {
    const entry = this.threads.get(threadId);
    this.emit({ audience: "connections", connectionIds: entry?.subscribers ?? [], notification });
  }

  /** Methods whose calls wait until {@link releaseHeld} (late results). */
  readonly hold = new Set<string>();
  private readonly held: (() => void)[] = [];

  /** Lets every held call finish with its normal result. */
  releaseHeld(): void {
    for (const release of this.held.splice(0)) release();
  }

  private maybeHang<T>(method: string, value: () => T): Promise<T> {
    if (this.hang.has(method)) return new Promise<T>(() => {});
    if (this.hold.has(method)) {
      return new Promise<T>((resolve, reject) => {
        this.held.push(() => {
          try {
            resolve(value());
          } catch (error) {
            reject(error);
          }
        });
      });
    }
    try {
      return Promise.resolve(value());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private needThen<T>(threadId: string, value: T): T {
    this.need(threadId);
    return value;
  }

  private need(threadId: string) {
    const entry = this.threads.get(threadId);
    if (entry === undefined) throw new AppServerError("threadNotFound", `no thread ${threadId}`);
    return entry;
  }

  startThread(params: { cwd: string }, caller: Caller) {
    return this.maybeHang("thread/start", () => {
      const now = new Date().toISOString();
      const thread: Thread = {
        id: `t${this.nextId++}`,
        cwd: params.cwd,
        createdAt: now,
        updatedAt: now,
        archived: false,
        status: { type: "idle" },
        approvalMode: caller.clientKind === "terminal" ? "fullAccess" : "ask",
      };
      this.threads.set(thread.id, { thread, subscribers: [caller.connectionId] });
      this.emit({ audience: "everyone", notification: { method: "thread/started", params: { thread } } });
      return { thread, warnings: [] };
    });
  }
  resumeThread(params: { threadId: string }, caller: Caller) {
    return this.maybeHang("thread/resume", () => {
      const entry = this.need(params.threadId);
      if (!entry.subscribers.includes(caller.connectionId)) entry.subscribers.push(caller.connectionId);
      const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextWindow: 1000 };
      return { thread: entry.thread, turns: [], queue: { steering: [], followUp: [] }, usage, warnings: [] };
    });
  }
  forkThread(params: { threadId: string }, caller: Caller) {
    return this.maybeHang("thread/fork", () => {
      this.need(params.threadId);
      return this.startThread({ cwd: "/" }, caller);
    }).then((p) => p);
  }
  readThread(params: { threadId: string }) {
    return this.maybeHang("thread/read", () => {
      if (this.readResult !== undefined) return this.readResult;
      return { thread: this.need(params.threadId).thread, turns: [] };
    });
  }
  /** Extra rows `thread/list` returns after the loaded threads (for response-size tests). */
  extraSummaries: Thread[] = [];
  listThreads(params: { limit?: number }) {
    return this.maybeHang("thread/list", () => {
      const all = [...[...this.threads.values()].map((t) => t.thread), ...this.extraSummaries];
      const limit = params.limit ?? 50;
      const threads = all.slice(0, limit);
      return threads.length < all.length ? { threads, nextCursor: `after:${limit}` } : { threads };
    });
  }
  unsubscribe(params: { threadId: string }, caller: Caller) {
    return this.maybeHang("thread/unsubscribe", () => {
      const entry = this.need(params.threadId);
      const before = entry.subscribers.length;
      entry.subscribers = entry.subscribers.filter((c) => c !== caller.connectionId);
      return {
        status: before === entry.subscribers.length ? ("notSubscribed" as const) : ("unsubscribed" as const),
      };
    });
  }
  archiveThread(params: { threadId: string }) {
    return this.maybeHang("thread/archive", () => this.needThen(params.threadId, {}));
  }
  unarchiveThread(params: { threadId: string }) {
    return this.maybeHang("thread/unarchive", () => this.needThen(params.threadId, {}));
  }
  deleteThread(params: { threadId: string }) {
    return this.maybeHang("thread/delete", () => {
      this.need(params.threadId);
      throw new AppServerError("threadNotArchived", "archive first");
    });
  }
  updateSettings(params: { threadId: string }) {
    return this.maybeHang("thread/settings/update", () => ({ thread: this.need(params.threadId).thread }));
  }
  listModels() {
    return this.maybeHang("model/list", () => ({ models: [] }));
  }
  completeCommand() {
    return this.maybeHang("command/complete", () => ({ prefix: "", values: [], hasMore: false }));
  }
  listCommands() {
    return this.maybeHang("command/list", () => ({ commands: [{ name: "review", description: "Review" }] }));
  }
  readContext() {
    return this.maybeHang("thread/context/read", () => ({ systemPrompt: "", tools: [] }));
  }
  listMcpServers() {
    return this.maybeHang("mcpServer/list", () => ({ servers: [] }));
  }
  readMcpResource() {
    return this.maybeHang("mcpServer/resource/read", () => ({ contents: [] }));
  }
  startTurn(params: { threadId: string; text: string; requestId?: string }, caller: Caller) {
    return this.maybeHang("turn/start", () => {
      const entry = this.need(params.threadId);
      if (!entry.subscribers.includes(caller.connectionId)) entry.subscribers.push(caller.connectionId);
      queueMicrotask(() => void this.runTurn(params.threadId, params.text, caller.connectionId));
      return { status: "started" as const, threadId: params.threadId, requestId: params.requestId };
    });
  }
  private async runTurn(threadId: string, text: string, connectionId: string): Promise<void> {
    const turnId = `turn${this.nextId++}`;
    const turn: Turn = { id: turnId, status: "inProgress", startedAt: Date.now() };
    const send = (n: ServerNotification) => this.toSubscribers(threadId, n);
    send({ method: "turn/started", params: { threadId, turn } });
    const user = { id: "0", type: "userMessage" as const, text, index: 0 };
    send({ method: "item/started", params: { threadId, turnId, item: user } });
    send({ method: "item/completed", params: { threadId, turnId, item: user } });
    if (text.startsWith("approve")) {
      const request = this.port!.requestApproval(connectionId, {
        threadId,
        turnId,
        itemId: "call1",
        toolName: "bash",
        input: { command: text.slice("approve".length) || "ls" },
        decisions: ["accept", "decline"],
      });
      try {
        this.lastApproval = await request.response;
      } catch (error) {
        this.lastApproval = error as Error;
      }
    }
    const reply = text.startsWith("big:") ? "x".repeat(Number(text.slice(4))) : `echo ${text}`;
    const agent = { id: "1", type: "agentMessage" as const, text: "", index: 1 };
    send({ method: "item/started", params: { threadId, turnId, item: agent } });
    send({ method: "item/agentMessage/delta", params: { threadId, turnId, itemId: "1", delta: reply } });
    send({ method: "item/completed", params: { threadId, turnId, item: { ...agent, text: reply } } });
    const done = { ...turn, status: "completed" as const, completedAt: Date.now() };
    send({ method: "turn/completed", params: { threadId, turn: done } });
    this.emit({
      audience: "everyone",
      notification: { method: "thread/turn/completed", params: { threadId, turn: done } },
    });
  }
  steerTurn(params: { threadId: string; expectedTurnId: string }) {
    return this.maybeHang("turn/steer", () => {
      this.need(params.threadId);
      throw new AppServerError("turnMismatch", "stale", { currentTurnId: null });
    });
  }
  interruptTurn(params: { threadId: string }) {
    return this.maybeHang("turn/interrupt", () => this.needThen(params.threadId, {}));
  }
  addToQueue(params: { threadId: string }) {
    return this.maybeHang("turn/queue/add", () => this.needThen(params.threadId, { queueId: "q1" }));
  }
  removeFromQueue(params: { threadId: string }) {
    return this.maybeHang("turn/queue/remove", () => this.needThen(params.threadId, { removed: false }));
  }
  readTree(params: { threadId: string }) {
    return this.maybeHang("thread/tree/read", () =>
      this.needThen(params.threadId, { entries: [], leafId: null, currentBranch: [] }),
    );
  }
  navigateTree(params: { threadId: string }) {
    return this.maybeHang("thread/tree/navigate", () => this.needThen(params.threadId, { leafId: null }));
  }
  runShell(params: { threadId: string }) {
    return this.maybeHang("thread/shell/run", () =>
      this.needThen(params.threadId, { output: "", exitCode: 0, cancelled: false, truncated: false }),
    );
  }
  diffThread(params: { threadId: string }) {
    return Promise.resolve(
      this.needThen(params.threadId, { diff: "", files: [], truncated: false, from: "" }),
    );
  }
  mergeWorktree(params: { threadId: string }) {
    return Promise.resolve(
      this.needThen(params.threadId, { target: "main", commit: "", commits: 0, committedChanges: false }),
    );
  }
  removeWorktree(params: { threadId: string }) {
    return Promise.resolve(this.needThen(params.threadId, { snapshotRef: "", snapshotCommit: "", path: "" }));
  }
  listWorktrees() {
    return Promise.resolve({ worktrees: [] });
  }
  undoTurn(params: { threadId: string }) {
    return this.maybeHang("thread/undo", () =>
      this.needThen(params.threadId, { turnId: "t", restored: [], notRestored: [], remaining: 0 }),
    );
  }
  attachServerRequests(port: ServerRequestPort): void {
    this.port = port;
  }
  onEvent(listener: (event: ThreadManagerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  connectionClosed(connectionId: string): void {
    this.closedConnections.push(connectionId);
    for (const entry of this.threads.values()) {
      entry.subscribers = entry.subscribers.filter((c) => c !== connectionId);
    }
  }
  diagnostics() {
    return {
      loadedThreads: this.threads.size,
      loadingThreads: 0,
      inactiveFactories: 0,
      listingFilesOpened: 0,
      listingBytesScanned: 0,
    };
  }
  async closeAll(): Promise<void> {
    this.closeAllCalls++;
  }
}
