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
  TurnRetryingNotification,
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
    for (const ref of resumed?.turns ?? []) {
      const turn = await this.client.resolveTurn(ref);
      for (const item of turn.items ?? []) this.view.showItem(turn.id, await this.resolve(item));
      this.view.showOutcome(turn);
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

  /** One notification; those for other threads are ignored. */
  handle(method: string, params: Record<string, unknown>): void {
    const threadId = params.threadId as string | undefined;
    if (method === "thread/replaced") {
      const p = params as { oldThreadId: string; thread: Thread };
      // /new and /fork: subscriptions moved to the new thread; show its history
      if (p.oldThreadId === this.thread?.id) void this.reload(p.thread);
      return;
    }
    if (threadId !== undefined && threadId !== this.thread?.id) return;
    const turnId = params.turnId as string | undefined;
    switch (method) {
      case "turn/started":
        this.runningTurnId = (params.turn as Turn).id;
        this.spinner.start();
        break;
      case "turn/completed": {
        const turn = params.turn as Turn;
        if (turn.id === this.runningTurnId) this.runningTurnId = undefined;
        this.spinner.stop();
        this.view.showOutcome(turn);
        const provider = this.thread?.model?.provider;
        if (turn.status === "failed" && turn.error?.kind === "auth" && provider !== undefined)
          void credentialsHint(this.client, provider).then((hint) => this.view.note(style.muted(hint)));
        break;
      }
      case "turn/retrying":
        this.view.note(style.warning(`↻ ${retryLine(params as TurnRetryingNotification)}`));
        break;
      case "item/started":
      case "item/completed": {
        const item = params.item as ThreadItem;
        if (isPayloadRef(item)) {
          void this.client.resolveItem(item).then((resolved) => this.view.showItem(turnId!, resolved));
        } else {
          this.view.showItem(turnId!, item);
        }
        break;
      }
      case "item/agentMessage/delta":
        this.view.appendDelta(turnId!, params.itemId as string, "agentMessage", params.delta as string);
        break;
      case "item/reasoning/delta":
        this.view.appendDelta(turnId!, params.itemId as string, "reasoning", params.delta as string);
        break;
      case "item/removed":
        this.view.removeItem(turnId!, params.itemId as string);
        break;
      case "turn/queue/updated":
        this.queueBlock.queue = {
          steering: params.steering as string[],
          followUp: params.followUp as QueueState["followUp"],
        };
        this.changed();
        break;
      case "thread/tokenUsage/updated":
        this.setUsage(params.usage as TokenUsage);
        break;
      case "warning":
        this.view.note(style.warning(`! ${params.message as string}`));
        break;
      case "error":
        this.view.note(style.error(`✗ ${params.message as string}`));
        break;
    }
  }
}
