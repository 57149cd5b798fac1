/**
 * Carries out the approvals package's routing state machine: one subscriber is asked
 * at a time (most recent initiator first); a disconnect or unsubscribe withdraws that
 * attempt and asks the next; nobody left, or an interrupted turn, means cancel. The
 * broker only performs the effects the pure reducer decides. Approvals use it, and so
 * do extension dialogs (a second broker that only hears of connections able to show them).
 */
import type { ItemToolCallRequestApprovalParams } from "@knightcode/app-server-protocol";
import {
  type ApprovalRouter,
  createApprovalRouter,
  type RouterEffect,
  type RouterEvent,
} from "@knightcode/approvals/routing";
import type { OutgoingRequest, ServerRequestPort } from "../api.ts";

/** The client's raw answer, or `cancelled` when nobody could answer. */
export type BrokerAnswer = { kind: "answered"; raw: unknown } | { kind: "cancelled" };

interface Pending<P> {
  threadId: string;
  params: P;
  resolve: (answer: BrokerAnswer) => void;
  attempt?: { id: number; connectionId: string; request: OutgoingRequest<unknown> };
}

/** How a broker sends its kind of request, and what a failed answer counts as. */
export interface BrokerChannel<P> {
  send(port: ServerRequestPort, connectionId: string, params: P): OutgoingRequest<unknown>;
  /** The raw answer an error reply from a connection still there stands for. */
  failedAnswer: unknown;
  /** Which connections may be asked at all; absent: every subscriber. */
  accepts?(port: ServerRequestPort, connectionId: string): boolean;
}

/** The channel of `item/toolCall/requestApproval`. */
export const approvalChannel: BrokerChannel<ItemToolCallRequestApprovalParams> = {
  send: (port, connectionId, params) => port.requestApproval(connectionId, params),
  // an error answer never grants
  failedAnswer: { decision: "decline" },
};

/** Open requests of one kind for every thread, routed through one router. */
export class RequestBroker<P extends { threadId: string }> {
  private readonly router: ApprovalRouter = createApprovalRouter();
  private readonly pending = new Map<string, Pending<P>>();
  private readonly openByThread = new Map<string, number>();
  private nextKey = 0;

  constructor(
    private readonly port: () => ServerRequestPort | undefined,
    /** Called when a thread's first request opens and when its last one closes. */
    private readonly onOpenChanged: (threadId: string) => void,
    private readonly channel: BrokerChannel<P>,
  ) {}

  /** Whether the thread has a request waiting for a client. */
  waiting(threadId: string): boolean {
    return (this.openByThread.get(threadId) ?? 0) > 0;
  }

  /** Tells the router about subscriptions, initiators, departures and closed threads. */
  note(event: Exclude<RouterEvent, { type: "opened" | "answered" | "withdrawn" }>): void {
    const port = this.port();
    if ("connectionId" in event && event.type !== "disconnected" && this.channel.accepts) {
      if (!port || !this.channel.accepts(port, event.connectionId)) return;
    }
    this.run(this.router.dispatch(event));
  }

  /** Asks until someone answers, nobody is left, or `signal` aborts. */
  ask(params: P, signal: AbortSignal): Promise<BrokerAnswer> {
    if (!this.port() || signal.aborted) return Promise.resolve({ kind: "cancelled" });
    const key = `request-${++this.nextKey}`;
    const threadId = params.threadId;
    return new Promise<BrokerAnswer>((resolve) => {
      const onAbort = () => this.run(this.router.dispatch({ type: "withdrawn", key }), "cancel");
      const finish = (answer: BrokerAnswer) => {
        if (!this.pending.delete(key)) return;
        signal.removeEventListener("abort", onAbort);
        const open = (this.openByThread.get(threadId) ?? 1) - 1;
        if (open === 0) this.openByThread.delete(threadId);
        else this.openByThread.set(threadId, open);
        if (open === 0) this.onOpenChanged(threadId);
        resolve(answer);
      };
      this.pending.set(key, { threadId, params, resolve: finish });
      const open = (this.openByThread.get(threadId) ?? 0) + 1;
      this.openByThread.set(threadId, open);
      if (open === 1) this.onOpenChanged(threadId);
      signal.addEventListener("abort", onAbort, { once: true });
      this.run(this.router.dispatch({ type: "opened", key, threadId }));
    });
  }

  private run(effects: readonly RouterEffect[], withdrawnMeans?: "cancel"): void {
    for (const effect of effects) {
      const pending = this.pending.get(effect.key);
      if (!pending) continue;
      switch (effect.type) {
        case "ask":
          this.send(effect.key, pending, effect.attemptId, effect.connectionId);
          break;
        case "withdrawAttempt":
          if (pending.attempt?.id === effect.attemptId) {
            // A departed connection cannot be told; one still there gets `serverRequest/cancelled`.
            if (effect.notify) pending.attempt.request.cancel();
            pending.attempt = undefined;
          }
          if (withdrawnMeans === "cancel") pending.resolve({ kind: "cancelled" });
          break;
        case "cancel":
          pending.resolve({ kind: "cancelled" });
          break;
        case "settled":
          break;
      }
    }
  }

  private send(key: string, pending: Pending<P>, attemptId: number, connectionId: string): void {
    const port = this.port();
    if (!port) {
      pending.resolve({ kind: "cancelled" });
      return;
    }
    const request = this.channel.send(port, connectionId, pending.params);
    pending.attempt = { id: attemptId, connectionId, request };
    request.response.then(
      (raw) => {
        if (pending.attempt?.id !== attemptId) return;
        this.run(this.router.dispatch({ type: "answered", key, attemptId }));
        pending.resolve({ kind: "answered", raw });
      },
      () => {
        // The connection closing also rejects; give its departure event a turn to migrate
        // the attempt first. An error answer from a connection still there counts as the channel's failed answer.
        setImmediate(() => {
          if (pending.attempt?.id !== attemptId) return;
          this.run(this.router.dispatch({ type: "answered", key, attemptId }));
          pending.resolve({ kind: "answered", raw: this.channel.failedAnswer });
        });
      },
    );
  }
}

/** The broker of approval requests. */
export type ApprovalBroker = RequestBroker<ItemToolCallRequestApprovalParams>;
