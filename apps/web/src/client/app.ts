/**
 * The page: sidebar (cwd, new thread, search, thread list), the open thread (pickers,
 * session tree, conversation, approvals, queue, composer) and the status line. It talks
 * to the server only through the typed client of the current connection.
 */
import type {
  ApprovalMode,
  AppServerClient,
  ModelRef,
  ThreadSummary,
  TreeEntry,
} from "@knightcode/app-server-protocol";
import { askApproval } from "./approval-card.ts";
import { Composer } from "./composer.ts";
import { Connection, type ConnectionStatus } from "./connection.ts";
import { ConversationView } from "./conversation-view.ts";
import { h, replaceChildren } from "./dom.ts";
import { OpenThread } from "./open-thread.ts";
import { rememberCwd, rememberedThread, rememberThread } from "./pairing.ts";
import { Pickers } from "./pickers.ts";
import { sessionTreeView } from "./session-tree.ts";
import { ThreadList } from "./thread-list.ts";

/** A thread known only by its ID until `thread/resume` answers with the real one. */
function placeholderThread(id: string, cwd: string): ThreadSummary {
  const now = new Date().toISOString();
  return { id, cwd, createdAt: now, updatedAt: now, archived: false, status: { type: "notLoaded" } };
}

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

/** The client application. */
export class App {
  private connection: Connection;
  private open: OpenThread | undefined;
  private readonly conversation = new ConversationView(byId("conversation"), undefined);
  private readonly list: ThreadList;
  private readonly composer: Composer;
  private readonly pickers: Pickers;
  private readonly cwdInput = byId<HTMLInputElement>("cwd");

  constructor(url: string, token: string, cwd: string | undefined) {
    this.cwdInput.value = cwd ?? "";
    this.list = new ThreadList(
      byId("thread-list"),
      byId("more-threads"),
      (thread) => void this.openThread(thread),
    );
    this.composer = new Composer(byId("composer"), byId("queue"), {
      send: (text) =>
        this.turnRequest((client, threadId) => client.request("turn/start", { threadId, text })),
      steer: (text) =>
        this.turnRequest((client, threadId) => {
          const turn = this.open?.running();
          if (turn === undefined) return client.request("turn/start", { threadId, text });
          return client.request("turn/steer", { threadId, expectedTurnId: turn.id, text });
        }),
      queue: (text) =>
        this.turnRequest((client, threadId) => client.request("turn/queue/add", { threadId, text })),
      interrupt: () =>
        this.turnRequest((client, threadId) => {
          const turnId = this.open?.running()?.id;
          return client.request("turn/interrupt", turnId === undefined ? { threadId } : { threadId, turnId });
        }),
      removeQueued: (queueId) =>
        this.turnRequest((client, threadId) => client.request("turn/queue/remove", { threadId, queueId })),
    });
    this.pickers = new Pickers(byId("model"), byId("approval-mode"), {
      setModel: (model) => void this.updateSettings({ model }),
      setApprovalMode: (approvalMode) => void this.updateSettings({ approvalMode }),
    });
    this.wireSidebar();
    this.connection = new Connection({
      url,
      token,
      setup: (client) => this.setup(client),
      onConnected: (client, _init, reconnect) => void this.connected(client, reconnect),
      onStatus: (status, detail) => this.showStatus(status, detail),
    });
  }

  start(): void {
    this.connection.start();
  }

  private wireSidebar(): void {
    byId("cwd-form").addEventListener("submit", (event) => {
      event.preventDefault();
      rememberCwd(sessionStorage, this.cwdInput.value.trim());
      void this.loadThreads(false);
    });
    byId("new-thread").addEventListener("click", () => void this.newThread());
    byId("more-threads").addEventListener("click", () => void this.loadThreads(true));
    byId<HTMLInputElement>("search").addEventListener("input", (event) => {
      this.list.query = (event.target as HTMLInputElement).value;
      this.list.draw();
    });
    byId("older").addEventListener(
      "click",
      () => void this.guard(() => this.withClient((c) => this.open!.loadOlder(c))),
    );
    byId("tree-toggle").addEventListener("click", () => void this.toggleTree());
  }

  /** Handlers of a fresh client: everything for the open thread goes to it, the rest to the sidebar. */
  private setup(client: AppServerClient): void {
    client.onNotification("*", (method, raw, meta) => {
      const params = (raw ?? {}) as Record<string, unknown>;
      const threadId = params.threadId as string | undefined;
      if (threadId !== undefined && threadId === this.open?.id)
        this.open.receive(client, { method, params, ...(meta?.seq === undefined ? {} : { seq: meta.seq }) });
      if (method === "thread/status/changed")
        this.list.setStatus(threadId!, params.status as ThreadSummary["status"]);
      if (method === "thread/started") this.threadStarted((params as { thread: ThreadSummary }).thread);
      if (method === "thread/deleted") this.list.remove(threadId!);
      // a session-replacing command moved this tab's subscription: follow it
      if (method === "thread/replaced" && params.oldThreadId === this.open?.id)
        void this.openThread((params as { thread: ThreadSummary }).thread);
      // a finished turn can name an untitled thread and reorders the list
      if (method === "thread/turn/completed" && this.cwdInput.value !== "") void this.loadThreads(false);
      if (method === "warning" || method === "error") this.notice(String(params.message), method);
    });
    client.onRequest("item/toolCall/requestApproval", (params, { signal }) =>
      askApproval(byId("approvals"), params, signal),
    );
  }

  private async connected(client: AppServerClient, reconnect: boolean): Promise<void> {
    await this.guard(async () => {
      const { models } = await client.request("model/list", this.open ? { threadId: this.open.id } : {});
      this.pickers.setModels(models, this.open?.state.thread.model);
      if (this.cwdInput.value !== "") await this.loadThreads(false);
      if (this.open !== undefined) {
        const outcome = await this.open.resume(client, reconnect);
        this.showStatus(
          "connected",
          outcome.kind === "replayed"
            ? `caught up: ${outcome.missed} missed updates replayed`
            : reconnect
              ? "resumed from the server's snapshot"
              : undefined,
        );
      } else {
        // a reload reopens the thread the tab had open, running turn and all
        const threadId = rememberedThread(sessionStorage);
        if (threadId !== undefined) await this.openThread(placeholderThread(threadId, this.cwdInput.value));
      }
      this.refresh();
    });
  }

  private threadStarted(thread: ThreadSummary): void {
    if (thread.cwd === this.cwdInput.value.trim()) this.list.upsert(thread);
  }

  private async loadThreads(append: boolean): Promise<void> {
    const cwd = this.cwdInput.value.trim();
    await this.guard(() =>
      this.withClient(async (client) => {
        const cursor = append ? this.list.nextCursor : undefined;
        const page = await client.request("thread/list", {
          ...(cwd === "" ? {} : { cwd }),
          limit: 50,
          ...(cursor === undefined ? {} : { cursor }),
        });
        this.list.setPage(page.threads, page.nextCursor, append);
      }),
    );
  }

  private async newThread(): Promise<void> {
    const cwd = this.cwdInput.value.trim();
    if (cwd === "") return this.notice("Choose a project folder (cwd) first", "warning");
    await this.guard(() =>
      this.withClient(async (client) => {
        const model = this.pickers.pickedModel();
        const { thread, warnings } = await client.request("thread/start", {
          cwd,
          approvalMode: this.pickers.pickedApprovalMode(),
          ...(model === undefined ? {} : { model }),
        });
        for (const warning of warnings) this.notice(warning.message, "warning");
        this.list.upsert(thread);
        await this.openThread(thread);
      }),
    );
  }

  private async openThread(thread: ThreadSummary): Promise<void> {
    const previous = this.open;
    if (previous?.id === thread.id) return;
    replaceChildren(byId("approvals"));
    byId("tree-panel").hidden = true;
    this.open = new OpenThread({ ...thread }, this.conversation, () => this.refresh());
    this.list.openId = thread.id;
    this.list.draw();
    rememberThread(sessionStorage, thread.id);
    await this.guard(() =>
      this.withClient(async (client) => {
        if (previous !== undefined)
          void client.request("thread/unsubscribe", { threadId: previous.id }).catch(() => {});
        await this.open!.resume(client);
        const { models } = await client.request("model/list", { threadId: thread.id });
        this.pickers.setModels(models, this.open!.state.thread.model);
      }),
    );
    this.refresh();
  }

  private async updateSettings(change: { model?: ModelRef; approvalMode?: ApprovalMode }): Promise<void> {
    if (this.open === undefined) return;
    const threadId = this.open.id;
    await this.guard(() =>
      this.withClient(async (client) => {
        const { thread } = await client.request("thread/settings/update", { threadId, ...change });
        if (this.open?.id === threadId) this.open.state.thread = thread;
        this.refresh();
      }),
    );
  }

  private async toggleTree(): Promise<void> {
    const panel = byId("tree-panel");
    if (!panel.hidden || this.open === undefined) {
      panel.hidden = true;
      return;
    }
    const threadId = this.open.id;
    await this.guard(() =>
      this.withClient(async (client) => {
        const tree = await client.request("thread/tree/read", { threadId });
        replaceChildren(
          panel,
          sessionTreeView(tree, (entry) => void this.navigate(threadId, entry)),
        );
        panel.hidden = false;
      }),
    );
  }

  private async navigate(threadId: string, entry: TreeEntry): Promise<void> {
    await this.guard(() =>
      this.withClient(async (client) => {
        // continuing after a user message means editing it: continue from its parent
        const entryId = entry.kind === "user" ? entry.parentId : entry.id;
        const result = await client.request("thread/tree/navigate", { threadId, entryId });
        if (result.cancelled === true)
          this.notice("An extension kept the conversation where it was", "warning");
        byId("tree-panel").hidden = true;
        if (this.open?.id === threadId) await this.open.resume(client);
      }),
    );
  }

  private async turnRequest(
    request: (client: AppServerClient, threadId: string) => Promise<unknown>,
  ): Promise<void> {
    const threadId = this.open?.id;
    if (threadId === undefined) throw new Error("no thread open");
    await this.withClient((client) => request(client, threadId)).catch((error: unknown) => {
      this.notice(error instanceof Error ? error.message : String(error), "error");
      throw error;
    });
  }

  private withClient<T>(use: (client: AppServerClient) => Promise<T>): Promise<T> {
    const client = this.connection.client;
    if (client === undefined) return Promise.reject(new Error("not connected: waiting for the server"));
    return use(client);
  }

  private async guard(action: () => Promise<unknown>): Promise<void> {
    try {
      await action();
    } catch (error) {
      this.notice(error instanceof Error ? error.message : String(error), "error");
    }
  }

  /** Draws what depends on the open thread's state. */
  private refresh(): void {
    const open = this.open;
    const connected = this.connection.client !== undefined;
    this.composer.setState(open !== undefined && connected, open?.running() !== undefined);
    byId("thread-title").textContent = open
      ? (open.state.thread.name ?? open.state.thread.title ?? "New thread")
      : "No thread open";
    byId("older").hidden = open?.state.olderCursor === undefined;
    byId("tree-toggle").hidden = open === undefined;
    if (open === undefined) return;
    this.pickers.showThread(open.state.thread);
    this.composer.showQueue(open.state.queue);
    const usage = open.state.usage;
    byId("usage").textContent =
      usage === undefined ? "" : `${usage.input + usage.output} tokens · $${usage.cost.toFixed(4)}`;
  }

  private showStatus(status: ConnectionStatus, detail?: string): void {
    const line = byId("connection");
    line.className = `connection ${status}`;
    line.textContent = detail === undefined ? status : `${status}: ${detail}`;
    this.refresh();
  }

  private notice(message: string, kind: "warning" | "error"): void {
    const notices = byId("notices");
    const element = h(
      "div",
      { class: `notice ${kind}` },
      message,
      h("button", { class: "link", onclick: () => element.remove() }, "dismiss"),
    );
    notices.appendChild(element);
  }
}
