/** One subscriber of a thread as the router sees it. */
export interface RouterSubscriber {
  readonly connectionId: string;
  /** Logical time of the latest subscription. */
  readonly subscribedAt: number;
  /** Logical time this connection last initiated work on the thread (turn/start, thread/start...). */
  readonly initiatedAt: number | null;
}

/** An approval waiting for an answer, and who is being asked right now. */
export interface PendingApproval {
  /** The manager's key for the approval (stable across migrations). */
  readonly key: string;
  readonly threadId: string;
  /** Changes on every migration; answers to an older attempt are ignored. */
  readonly attemptId: number;
  readonly connectionId: string;
}

/** The router's whole state; treat as immutable. */
export interface RouterState {
  readonly clock: number;
  readonly nextAttemptId: number;
  readonly subscribers: Readonly<Record<string, readonly RouterSubscriber[]>>;
  readonly pending: Readonly<Record<string, PendingApproval>>;
  /** Approvals nobody can be asked right now, waiting for the thread's next subscriber. */
  readonly parked: Readonly<Record<string, { readonly key: string; readonly threadId: string }>>;
  /**
   * Threads whose last subscriber left by a disconnect that may be followed by a
   * reconnect: their approvals park instead of cancelling until someone subscribes.
   */
  readonly holding: Readonly<Record<string, true>>;
}

/** What happened, as the thread manager reports it. */
export type RouterEvent =
  | { type: "subscribed"; threadId: string; connectionId: string }
  | { type: "initiated"; threadId: string; connectionId: string }
  | { type: "unsubscribed"; threadId: string; connectionId: string }
  /** `keepPending`: the client may reconnect; what nobody else can answer parks. */
  | { type: "disconnected"; connectionId: string; keepPending?: boolean }
  | { type: "opened"; key: string; threadId: string }
  | { type: "answered"; key: string; attemptId: number }
  | { type: "withdrawn"; key: string }
  | { type: "threadClosed"; threadId: string };

/** What the thread manager must do in response. */
export type RouterEffect =
  /** Send the approval request to this connection. */
  | { type: "ask"; key: string; attemptId: number; connectionId: string }
  /** Abandon the outstanding attempt; `notify` means the connection is still there and gets `serverRequest/cancelled`. */
  | { type: "withdrawAttempt"; key: string; attemptId: number; connectionId: string; notify: boolean }
  /** Nobody is left to ask: resolve the tool call as `cancel`. */
  | { type: "cancel"; key: string }
  /** This answer is the one that counts; apply it. */
  | { type: "settled"; key: string; attemptId: number; connectionId: string };

/** A reducer step's result. */
export interface RouterStep {
  readonly state: RouterState;
  readonly effects: readonly RouterEffect[];
}

/** The router's starting state. */
export function initialRouterState(): RouterState {
  return { clock: 0, nextAttemptId: 1, subscribers: {}, pending: {}, parked: {}, holding: {} };
}

/**
 * Pure reducer for approval routing. One subscriber is asked at a time: the most
 * recent initiator first, then the most recent subscriber. Losing that subscriber
 * withdraws the attempt and asks the next one; nobody left means cancel.
 */
export function routeApproval(state: RouterState, event: RouterEvent): RouterStep {
  const s: RouterState = { ...state, clock: state.clock + 1 };
  switch (event.type) {
    case "subscribed":
    case "initiated": {
      const list = own(s.subscribers, event.threadId) ?? [];
      const existing = list.find((sub) => sub.connectionId === event.connectionId);
      const updated: RouterSubscriber = {
        connectionId: event.connectionId,
        subscribedAt: existing?.subscribedAt ?? s.clock,
        initiatedAt: event.type === "initiated" ? s.clock : (existing?.initiatedAt ?? null),
      };
      const others = list.filter((sub) => sub.connectionId !== event.connectionId);
      let next: RouterState = {
        ...s,
        subscribers: { ...s.subscribers, [event.threadId]: [...others, updated] },
        holding: without(s.holding, event.threadId),
      };
      // the newcomer is asked what waited for a subscriber
      const effects: RouterEffect[] = [];
      for (const parked of Object.values(s.parked)) {
        if (parked.threadId !== event.threadId) continue;
        next = { ...next, parked: without(next.parked, parked.key) };
        const step = assign(next, parked.key, parked.threadId, []);
        next = step.state;
        effects.push(...step.effects);
      }
      return { state: next, effects };
    }
    case "unsubscribed":
      return dropSubscriber(s, event.connectionId, (threadId) => threadId === event.threadId, true);
    case "disconnected": {
      if (event.keepPending !== true) return dropSubscriber(s, event.connectionId, () => true, false);
      // threads this connection was the last subscriber of hold their approvals for a reconnect
      let holding = s.holding;
      for (const [threadId, list] of Object.entries(s.subscribers)) {
        if (list.length === 1 && list[0]?.connectionId === event.connectionId)
          holding = { ...holding, [threadId]: true };
      }
      return dropSubscriber({ ...s, holding }, event.connectionId, () => true, false);
    }
    case "opened": {
      if (own(s.pending, event.key) !== undefined) return { state: s, effects: [] };
      return assign(s, event.key, event.threadId, []);
    }
    case "answered": {
      const pending = own(s.pending, event.key);
      if (pending === undefined || pending.attemptId !== event.attemptId) return { state: s, effects: [] };
      return {
        state: { ...s, pending: without(s.pending, event.key) },
        effects: [
          {
            type: "settled",
            key: pending.key,
            attemptId: pending.attemptId,
            connectionId: pending.connectionId,
          },
        ],
      };
    }
    case "withdrawn": {
      if (own(s.parked, event.key) !== undefined) {
        return {
          state: { ...s, parked: without(s.parked, event.key) },
          effects: [{ type: "cancel", key: event.key }],
        };
      }
      const pending = own(s.pending, event.key);
      if (pending === undefined) return { state: s, effects: [] };
      return {
        state: { ...s, pending: without(s.pending, event.key) },
        effects: [withdrawal(pending, true)],
      };
    }
    case "threadClosed": {
      const effects: RouterEffect[] = [];
      let pendingMap = s.pending;
      for (const pending of Object.values(s.pending)) {
        if (pending.threadId !== event.threadId) continue;
        pendingMap = without(pendingMap, pending.key);
        effects.push(withdrawal(pending, true), { type: "cancel", key: pending.key });
      }
      let parked = s.parked;
      for (const waiting of Object.values(s.parked)) {
        if (waiting.threadId !== event.threadId) continue;
        parked = without(parked, waiting.key);
        effects.push({ type: "cancel", key: waiting.key });
      }
      const subscribers = without(s.subscribers, event.threadId);
      const holding = without(s.holding, event.threadId);
      return { state: { ...s, pending: pendingMap, subscribers, parked, holding }, effects };
    }
  }
}

/** Subscribers of a thread in the order they would be asked. */
export function askOrder(state: RouterState, threadId: string): string[] {
  const list = [...(own(state.subscribers, threadId) ?? [])];
  list.sort((a, b) => (b.initiatedAt ?? -1) - (a.initiatedAt ?? -1) || b.subscribedAt - a.subscribedAt);
  return list.map((sub) => sub.connectionId);
}

/** A mutable convenience wrapper around `routeApproval` for a thread manager. */
export interface ApprovalRouter {
  dispatch(event: RouterEvent): readonly RouterEffect[];
  readonly state: RouterState;
}

/** Creates a router holding its own state. */
export function createApprovalRouter(): ApprovalRouter {
  let state = initialRouterState();
  return {
    dispatch(event) {
      const step = routeApproval(state, event);
      state = step.state;
      return step.effects;
    },
    get state() {
      return state;
    },
  };
}

function assign(s: RouterState, key: string, threadId: string, effects: RouterEffect[]): RouterStep {
  const next = askOrder(s, threadId)[0];
  if (next === undefined && own(s.holding, threadId) !== undefined) {
    // a client that lost its connection is expected back: the approval waits for it
    return {
      state: { ...s, pending: without(s.pending, key), parked: { ...s.parked, [key]: { key, threadId } } },
      effects,
    };
  }
  if (next === undefined)
    return {
      state: { ...s, pending: without(s.pending, key) },
      effects: [...effects, { type: "cancel", key }],
    };
  const pending: PendingApproval = { key, threadId, attemptId: s.nextAttemptId, connectionId: next };
  return {
    state: { ...s, nextAttemptId: s.nextAttemptId + 1, pending: { ...s.pending, [key]: pending } },
    effects: [...effects, { type: "ask", key, attemptId: pending.attemptId, connectionId: next }],
  };
}

function dropSubscriber(
  s: RouterState,
  connectionId: string,
  matches: (threadId: string) => boolean,
  notify: boolean,
): RouterStep {
  const subscribers: Record<string, readonly RouterSubscriber[]> = {};
  for (const [threadId, list] of Object.entries(s.subscribers)) {
    const kept = matches(threadId) ? list.filter((sub) => sub.connectionId !== connectionId) : list;
    if (kept.length > 0) subscribers[threadId] = kept;
  }
  let state: RouterState = { ...s, subscribers };
  const effects: RouterEffect[] = [];
  for (const pending of Object.values(s.pending)) {
    if (pending.connectionId !== connectionId || !matches(pending.threadId)) continue;
    effects.push(withdrawal(pending, notify));
    const step = assign(state, pending.key, pending.threadId, []);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

function withdrawal(pending: PendingApproval, notify: boolean): RouterEffect {
  return {
    type: "withdrawAttempt",
    key: pending.key,
    attemptId: pending.attemptId,
    connectionId: pending.connectionId,
    notify,
  };
}

function without<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const copy = { ...record };
  delete copy[key];
  return copy;
}

// Own properties only, so an ID such as "__proto__" or "constructor" is just an ID.
function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
