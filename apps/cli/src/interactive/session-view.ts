/**
 * The live state of the open thread as the UI shows it: which turn runs, what is queued,
 * the usage, the footer. Every notification for the thread lands here and becomes blocks.
 */
import type {
  AppServerClient,
  QueueState,
  Thread,
  ThreadItem,
  ThreadResumeResult,
  TokenUsage,
  Turn,
} from "@knightcode/app-server-protocol";
import { isPayloadRef } from "@knightcode/app-server-protocol";
import { credentialsHint } from "../credentials.ts";
import { retryLine } from "../retry-line.ts";
import type { ConversationView } from "./conversation-view.ts";
import type { Footer } from "./footer.ts";
import type { Block } from "./ui/block.ts";
import type { Spinner } from "./ui/spinner.ts";
import { style } from "./ui/style.ts";
import { fitLine } from "./ui/text.ts";

/** Steers not yet delivered and queued follow-ups, above the editor. */
export class QueueBlock implements Block {
  queue: QueueState = { steering: [], followUp: [] };
  render(width: number): string[] {
    return [
      ...this.queue.steering.map((t) => fitLine(style.muted(`↳ steering: ${t.replace(/\s+/g, " ")}`), width)),
      ...this.queue.followUp.map((q) =>
        fitLine(style.muted(`⏸ queued: ${q.text.replace(/\s+/g, " ")} (Alt+↑ to edit)`), width),
      ),
    ];
  }
}

/** What the UI knows about the open thread. */
export class SessionView {
  thread: Thread | undefined;
  runningTurnId: string | undefined;
  readonly queueBlock = new QueueBlock();

  constructor(
    private readonly client: AppServerClient,
    private readonly view: ConversationView,
    private readonly footer: Footer,
    private readonly spinner: Spinner,
    private readonly changed: () => void,
  ) {}

  /** Called as a thread becomes the open one. */
  onOpened: (threadId: string) => void = () => {};

  get threadId(): string | undefined {
    return this.thread?.id;
  }

  get queue(): QueueState {
    return this.queueBlock.queue;
  }

  /** Switches to `thread`, showing its history when it was resumed. */
  async open(thread: Thread, resumed?: ThreadResumeResult): Promise<void> {
    this.thread = thread;
    this.onOpened(thread.id);
    this.footer.thread = thread;
    this.footer.usage = resumed?.usage;
    this.runningTurnId = resumed?.runningTurn?.id;
    this.queueBlock.queue = resumed?.queue ?? { steering: [], followUp: [] };
    this.view.clear();
    const shown = new Set<string>();
    for (const ref of resumed?.turns ?? []) {
      const turn = await this.client.resolveTurn(ref);
      shown.add(turn.id);
      for (const item of turn.items ?? []) this.view.showItem(turn.id, await this.resolve(item));
      this.view.showOutcome(turn);
    }
    // the running turn's snapshot goes in before the deltas that follow it
    const running = resumed?.runningTurn;
    if (running !== undefined && !shown.has(running.id)) {
      const turn = await this.client.resolveTurn(running);
      for (const item of turn.items ?? []) this.view.showItem(turn.id, await this.resolve(item));
    }
    if (this.runningTurnId !== undefined) this.spinner.start();
    this.changed();
  }

  /** Shows `thread` from its newest history page (after a replacement). */
  async reload(thread: Thread): Promise<void> {
    this.thread = thread;
    const resumed = await this.client.request("thread/resume", { threadId: thread.id });
    await this.open(resumed.thread, resumed);
  }

  setThread(thread: Thread): void {
    if (thread.id !== this.thread?.id) return;
    this.thread = thread;
    this.footer.thread = thread;
    this.changed();
  }

  setUsage(usage: TokenUsage): void {
    this.footer.usage = usage;
    this.changed();
  }

  private async resolve(item: ThreadItem | { type: "payloadRef" }): Promise<ThreadItem> {
    return isPayloadRef(item) ? this.client.resolveItem(item) : (item as ThreadItem);
  }

  /** Whether a notification is for the open thread. */
  private mine(params: { threadId: string }): boolean {
    return params.threadId === this.thread?.id;
  }

  /**
   * Listens to the notifications the view shows, each through the client's typed handler;
   * those for other threads are ignored. Returns the unsubscribe function.
   */
  subscribe(): () => void {
    const client = this.client;
    const offs = [
      client.onNotification("thread/replaced", (p) => {
        // /new and /fork: subscriptions moved to the new thread; show its history
        if (p.oldThreadId === this.thread?.id) void this.reload(p.thread);
      }),
      client.onNotification("thread/started", (p) => {
        // also re-sent for a thread that changed (`/name`): the footer shows the name
        if (p.thread.id === this.thread?.id) this.setThread(p.thread);
      }),
      client.onNotification("turn/started", (p) => {
        if (!this.mine(p)) return;
        this.runningTurnId = p.turn.id;
        this.spinner.start();
      }),
      client.onNotification("turn/completed", (p) => {
        if (!this.mine(p)) return;
        if (p.turn.id === this.runningTurnId) this.runningTurnId = undefined;
        this.spinner.stop();
        this.footer.refreshBranch();
        const turn = p.turn as Turn;
        this.view.showOutcome(turn);
        const provider = this.thread?.model?.provider;
        if (turn.status === "failed" && turn.error?.kind === "auth" && provider !== undefined)
          void credentialsHint(this.client, provider).then((hint) => this.view.note(style.muted(hint)));
      }),
      client.onNotification("turn/retrying", (p) => {
        if (this.mine(p)) this.view.note(style.warning(`↻ ${retryLine(p)}`));
      }),
      ...(["item/started", "item/completed"] as const).map((method) =>
        client.onNotification(method, (p) => {
          if (!this.mine(p)) return;
          const item = p.item;
          if (isPayloadRef(item)) {
            void this.client.resolveItem(item).then((resolved) => this.view.showItem(p.turnId, resolved));
          } else {
            this.view.showItem(p.turnId, item);
          }
        }),
      ),
      client.onNotification("item/agentMessage/delta", (p) => {
        if (this.mine(p)) this.view.appendDelta(p.turnId, p.itemId, "agentMessage", p.delta);
      }),
      client.onNotification("item/reasoning/delta", (p) => {
        if (this.mine(p)) this.view.appendDelta(p.turnId, p.itemId, "reasoning", p.delta);
      }),
      client.onNotification("item/removed", (p) => {
        if (this.mine(p)) this.view.removeItem(p.turnId, p.itemId);
      }),
      client.onNotification("turn/queue/updated", (p) => {
        if (!this.mine(p)) return;
        this.queueBlock.queue = { steering: p.steering, followUp: p.followUp };
        this.changed();
      }),
      client.onNotification("thread/tokenUsage/updated", (p) => {
        if (this.mine(p)) this.setUsage(p.usage);
      }),
      client.onNotification("warning", (p) => {
        if (p.threadId === undefined || this.mine({ threadId: p.threadId }))
          this.view.note(style.warning(`! ${p.message}`));
      }),
      client.onNotification("error", (p) => {
        if (p.threadId === undefined || this.mine({ threadId: p.threadId }))
          this.view.note(style.error(`✗ ${p.message}`));
      }),
    ];
    return () => {
      for (const off of offs) off();
    };
  }
}
