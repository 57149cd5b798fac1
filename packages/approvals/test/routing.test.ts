import { describe, expect, test } from "bun:test";
import {
  askOrder,
  createApprovalRouter,
  initialRouterState,
  type RouterEvent,
  type RouterState,
  routeApproval,
} from "@knightcode/approvals";

function run(events: RouterEvent[], state: RouterState = initialRouterState()) {
  let s = state;
  const effects = [];
  for (const event of events) {
    const step = routeApproval(s, event);
    s = step.state;
    effects.push(...step.effects);
  }
  return { state: s, effects };
}

describe("approval routing", () => {
  test("the most recent initiating subscriber is asked first", () => {
    const router = createApprovalRouter();
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "a" });
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "b" });
    router.dispatch({ type: "subscribed", threadId: "t", connectionId: "c" });
    expect(router.dispatch({ type: "opened", key: "k", threadId: "t" })).toEqual([
      { type: "ask", key: "k", attemptId: 1, connectionId: "b" },
    ]);
  });

  test("a later initiation by an older subscriber moves it to the front", () => {
    const { state } = run([
      { type: "initiated", threadId: "t", connectionId: "a" },
      { type: "initiated", threadId: "t", connectionId: "b" },
      { type: "initiated", threadId: "t", connectionId: "a" },
      { type: "subscribed", threadId: "t", connectionId: "c" },
    ]);
    expect(askOrder(state, "t")).toEqual(["a", "b", "c"]);
  });

  test("without initiators the most recent subscriber is asked", () => {
    const { state } = run([
      { type: "subscribed", threadId: "t", connectionId: "a" },
      { type: "subscribed", threadId: "t", connectionId: "b" },
    ]);
    expect(askOrder(state, "t")).toEqual(["b", "a"]);
  });

  test("disconnect cancels that attempt silently and migrates to the next subscriber", () => {
    const router = createApprovalRouter();
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "a" });
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "b" });
    router.dispatch({ type: "opened", key: "k", threadId: "t" });
    expect(router.dispatch({ type: "disconnected", connectionId: "b" })).toEqual([
      { type: "withdrawAttempt", key: "k", attemptId: 1, connectionId: "b", notify: false },
      { type: "ask", key: "k", attemptId: 2, connectionId: "a" },
    ]);
  });

  test("unsubscribe withdraws the attempt with a serverRequest/cancelled notice and migrates", () => {
    const router = createApprovalRouter();
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "a" });
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "b" });
    router.dispatch({ type: "opened", key: "k", threadId: "t" });
    expect(router.dispatch({ type: "unsubscribed", threadId: "t", connectionId: "b" })).toEqual([
      { type: "withdrawAttempt", key: "k", attemptId: 1, connectionId: "b", notify: true },
      { type: "ask", key: "k", attemptId: 2, connectionId: "a" },
    ]);
  });

  test("unsubscribing from another thread leaves this thread's attempt alone", () => {
    const router = createApprovalRouter();
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "a" });
    router.dispatch({ type: "initiated", threadId: "u", connectionId: "a" });
    router.dispatch({ type: "opened", key: "k", threadId: "t" });
    expect(router.dispatch({ type: "unsubscribed", threadId: "u", connectionId: "a" })).toEqual([]);
    expect(router.state.pending.k?.connectionId).toBe("a");
  });

  test("no subscribers left means cancel", () => {
    const router = createApprovalRouter();
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "a" });
    router.dispatch({ type: "opened", key: "k", threadId: "t" });
    expect(router.dispatch({ type: "disconnected", connectionId: "a" })).toEqual([
      { type: "withdrawAttempt", key: "k", attemptId: 1, connectionId: "a", notify: false },
      { type: "cancel", key: "k" },
    ]);
    expect(router.state.pending).toEqual({});
  });

  test("a reconnectable client's disconnect parks what nobody else can answer, and the next subscriber is asked", () => {
    const router = createApprovalRouter();
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "a" });
    router.dispatch({ type: "opened", key: "k", threadId: "t" });
    expect(router.dispatch({ type: "disconnected", connectionId: "a", keepPending: true })).toEqual([
      { type: "withdrawAttempt", key: "k", attemptId: 1, connectionId: "a", notify: false },
    ]);
    expect(router.state.parked.k).toEqual({ key: "k", threadId: "t" });
    // a request opened while the thread waits for its client parks too
    expect(router.dispatch({ type: "opened", key: "m", threadId: "t" })).toEqual([]);
    expect(router.dispatch({ type: "subscribed", threadId: "t", connectionId: "b" })).toEqual([
      { type: "ask", key: "k", attemptId: 2, connectionId: "b" },
      { type: "ask", key: "m", attemptId: 3, connectionId: "b" },
    ]);
    expect(router.state.parked).toEqual({});
    expect(router.state.holding).toEqual({});
  });

  test("a disconnect that leaves another subscriber migrates as before, and holds nothing", () => {
    const router = createApprovalRouter();
    router.dispatch({ type: "subscribed", threadId: "t", connectionId: "a" });
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "b" });
    router.dispatch({ type: "opened", key: "k", threadId: "t" });
    expect(router.dispatch({ type: "disconnected", connectionId: "b", keepPending: true })).toEqual([
      { type: "withdrawAttempt", key: "k", attemptId: 1, connectionId: "b", notify: false },
      { type: "ask", key: "k", attemptId: 2, connectionId: "a" },
    ]);
    expect(router.state.holding).toEqual({});
  });

  test("a parked request is cancelled when it is withdrawn or its thread closes", () => {
    const router = createApprovalRouter();
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "a" });
    router.dispatch({ type: "opened", key: "k", threadId: "t" });
    router.dispatch({ type: "opened", key: "m", threadId: "t" });
    router.dispatch({ type: "disconnected", connectionId: "a", keepPending: true });
    expect(router.dispatch({ type: "withdrawn", key: "k" })).toEqual([{ type: "cancel", key: "k" }]);
    expect(router.dispatch({ type: "threadClosed", threadId: "t" })).toEqual([{ type: "cancel", key: "m" }]);
    expect(router.state.parked).toEqual({});
    expect(router.state.holding).toEqual({});
  });

  test("opening a request on a thread with no subscribers cancels at once", () => {
    expect(run([{ type: "opened", key: "k", threadId: "t" }]).effects).toEqual([
      { type: "cancel", key: "k" },
    ]);
  });

  test("the request keeps migrating until it runs out of subscribers", () => {
    const { effects } = run([
      { type: "subscribed", threadId: "t", connectionId: "a" },
      { type: "subscribed", threadId: "t", connectionId: "b" },
      { type: "initiated", threadId: "t", connectionId: "c" },
      { type: "opened", key: "k", threadId: "t" },
      { type: "disconnected", connectionId: "c" },
      { type: "unsubscribed", threadId: "t", connectionId: "b" },
      { type: "disconnected", connectionId: "a" },
    ]);
    expect(effects.filter((e) => e.type === "ask").map((e) => e.type === "ask" && e.connectionId)).toEqual([
      "c",
      "b",
      "a",
    ]);
    expect(effects.at(-1)).toEqual({ type: "cancel", key: "k" });
  });

  test("only the current attempt's answer settles; a stale one is ignored", () => {
    const router = createApprovalRouter();
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "a" });
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "b" });
    router.dispatch({ type: "opened", key: "k", threadId: "t" });
    router.dispatch({ type: "unsubscribed", threadId: "t", connectionId: "b" });
    expect(router.dispatch({ type: "answered", key: "k", attemptId: 1 })).toEqual([]);
    expect(router.dispatch({ type: "answered", key: "k", attemptId: 2 })).toEqual([
      { type: "settled", key: "k", attemptId: 2, connectionId: "a" },
    ]);
    expect(router.dispatch({ type: "answered", key: "k", attemptId: 2 })).toEqual([]);
  });

  test("a withdrawn request yields a cancelled notice to the connection being asked", () => {
    const router = createApprovalRouter();
    router.dispatch({ type: "initiated", threadId: "t", connectionId: "a" });
    router.dispatch({ type: "opened", key: "k", threadId: "t" });
    expect(router.dispatch({ type: "withdrawn", key: "k" })).toEqual([
      { type: "withdrawAttempt", key: "k", attemptId: 1, connectionId: "a", notify: true },
    ]);
    expect(router.dispatch({ type: "withdrawn", key: "k" })).toEqual([]);
    expect(router.dispatch({ type: "answered", key: "k", attemptId: 1 })).toEqual([]);
  });

  test("closing a thread withdraws and cancels its requests and forgets its subscribers", () => {
    const { state, effects } = run([
      { type: "initiated", threadId: "t", connectionId: "a" },
      { type: "initiated", threadId: "u", connectionId: "a" },
      { type: "opened", key: "k1", threadId: "t" },
      { type: "opened", key: "k2", threadId: "u" },
      { type: "threadClosed", threadId: "t" },
    ]);
    expect(effects.slice(2)).toEqual([
      { type: "withdrawAttempt", key: "k1", attemptId: 1, connectionId: "a", notify: true },
      { type: "cancel", key: "k1" },
    ]);
    expect(askOrder(state, "t")).toEqual([]);
    expect(Object.keys(state.pending)).toEqual(["k2"]);
  });

  test("opening the same key twice does not ask twice", () => {
    const { effects } = run([
      { type: "initiated", threadId: "t", connectionId: "a" },
      { type: "opened", key: "k", threadId: "t" },
      { type: "opened", key: "k", threadId: "t" },
    ]);
    expect(effects).toHaveLength(1);
  });

  test("two requests on one thread migrate independently", () => {
    const { effects } = run([
      { type: "initiated", threadId: "t", connectionId: "a" },
      { type: "initiated", threadId: "t", connectionId: "b" },
      { type: "opened", key: "k1", threadId: "t" },
      { type: "opened", key: "k2", threadId: "t" },
      { type: "disconnected", connectionId: "b" },
    ]);
    expect(effects.slice(2)).toEqual([
      { type: "withdrawAttempt", key: "k1", attemptId: 1, connectionId: "b", notify: false },
      { type: "ask", key: "k1", attemptId: 3, connectionId: "a" },
      { type: "withdrawAttempt", key: "k2", attemptId: 2, connectionId: "b", notify: false },
      { type: "ask", key: "k2", attemptId: 4, connectionId: "a" },
    ]);
  });

  test("the reducer never mutates the state it is given", () => {
    const before = run([
      { type: "initiated", threadId: "t", connectionId: "a" },
      { type: "opened", key: "k", threadId: "t" },
    ]).state;
    const snapshot = JSON.stringify(before);
    routeApproval(before, { type: "disconnected", connectionId: "a" });
    routeApproval(before, { type: "initiated", threadId: "t", connectionId: "b" });
    expect(JSON.stringify(before)).toBe(snapshot);
  });

  test("IDs that name Object.prototype members are plain IDs", () => {
    const { effects } = run([
      { type: "initiated", threadId: "__proto__", connectionId: "constructor" },
      { type: "opened", key: "__proto__", threadId: "__proto__" },
      { type: "answered", key: "__proto__", attemptId: 1 },
    ]);
    expect(effects.map((e) => e.type)).toEqual(["ask", "settled"]);
    expect(run([{ type: "opened", key: "k", threadId: "constructor" }]).effects).toEqual([
      { type: "cancel", key: "k" },
    ]);
  });
});
