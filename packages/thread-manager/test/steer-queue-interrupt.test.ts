import { describe, expect, test } from "bun:test";
import { AppServerError } from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { type ExtensionHostFactory, type ModelSource, staticModelSource } from "../src/index.ts";
import { createHarness, type Harness } from "./support/harness.ts";

async function expectCode(promise: Promise<unknown>, code: string): Promise<AppServerError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppServerError);
    expect((error as AppServerError).code).toBe(code);
    return error as AppServerError;
  }
  throw new Error(`expected ${code}`);
}

/** Starts a turn that stops at an approval for a write, so it stays running until answered. */
async function runningTurn(h: Harness) {
  const caller = h.desktop();
  const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, caller);
  h.server.enqueue(
    toolCallReply({ name: "write", arguments: { path: "w.txt", content: "x" }, id: "call_w" }),
    textReply("after"),
  );
  await h.manager.startTurn({ threadId: thread.id, text: "go" }, caller);
  const approval = await h.waitForApproval(0);
  return { threadId: thread.id, turnId: approval.params.turnId, approval, caller };
}

function hostWith(
  hooks: Parameters<ExtensionHostFactory>[0] extends never ? never : object,
): ExtensionHostFactory {
  return async () => ({ hooks, commands: [], warnings: [], dispose: async () => {} });
}

describe("turn admission", () => {
  test("a second start while a turn runs returns turnInProgress", async () => {
    await using h = await createHarness();
    const { threadId, approval, caller } = await runningTurn(h);
    await expectCode(h.manager.startTurn({ threadId, text: "again" }, caller), "turnInProgress");
    approval.answer({ decision: "accept" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
  });

  test("a thread with no usable model refuses a start with invalidParams", async () => {
    await using h = await createHarness({ noModel: true });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    await expectCode(h.manager.startTurn({ threadId: thread.id, text: "x" }, h.desktop()), "invalidParams");
  });

  test("relative, missing and non-image path images return invalidParams", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    const start = (path: string) =>
      h.manager.startTurn({ threadId: thread.id, text: "x", images: [{ path }] }, h.desktop());
    await expectCode(start("relative.png"), "invalidParams");
    await expectCode(start(`${h.dir.cwd}/missing.png`), "invalidParams");
    await expectCode(start(h.dir.cwd), "invalidParams");
    await Bun.write(`${h.dir.cwd}/fake.png`, "not an image");
    await expectCode(start(`${h.dir.cwd}/fake.png`), "invalidParams");
    expect(h.server.requests.length).toBe(0);
  });
});

describe("turn/steer", () => {
  test("a stale expectedTurnId returns turnMismatch naming the running turn", async () => {
    await using h = await createHarness();
    const { threadId, turnId, approval, caller } = await runningTurn(h);
    const error = await expectCode(
      h.manager.steerTurn({ threadId, expectedTurnId: "stale", text: "more" }, caller),
      "turnMismatch",
    );
    expect(error.data).toEqual({ currentTurnId: turnId });
    approval.answer({ decision: "accept" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    await expectCode(
      h.manager.steerTurn({ threadId, expectedTurnId: turnId, text: "late" }, caller),
      "turnMismatch",
    );
  });

  test("an accepted steer reaches the model inside the running turn", async () => {
    await using h = await createHarness();
    const { threadId, turnId, approval, caller } = await runningTurn(h);
    expect(
      await h.manager.steerTurn({ threadId, expectedTurnId: turnId, text: "also say hi" }, caller),
    ).toEqual({
      turnId,
    });
    await h.waitFor((n) => n.method === "turn/queue/updated" && n.params.steering.includes("also say hi"));
    approval.answer({ decision: "accept" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect((await h.server.waitForRequest(1)).rawBody).toContain("also say hi");
    const read = await h.manager.readThread({ threadId }, caller);
    expect(read.turns.length).toBe(1);
    const texts = (read.turns[0] && "items" in read.turns[0] ? (read.turns[0].items ?? []) : []).flatMap(
      (i) => ("type" in i && i.type === "userMessage" ? [i.text] : []),
    );
    expect(texts).toEqual(["go", "also say hi"]);
  });
});

describe("turn/queue", () => {
  test("add queues behind a running turn, remove withdraws it, and the rest start oldest first", async () => {
    await using h = await createHarness();
    const { threadId, approval, caller } = await runningTurn(h);
    const a = await h.manager.addToQueue({ threadId, text: "queued-alpha" }, caller);
    const b = await h.manager.addToQueue({ threadId, text: "queued-beta" }, caller);
    const c = await h.manager.addToQueue({ threadId, text: "queued-gamma" }, caller);
    await h.waitFor(
      (n) =>
        n.method === "turn/queue/updated" &&
        n.params.followUp.map((f) => f.text).join() === "queued-alpha,queued-beta,queued-gamma",
    );
    expect(await h.manager.removeFromQueue({ threadId, queueId: b.queueId }, caller)).toEqual({
      removed: true,
    });
    expect(await h.manager.removeFromQueue({ threadId, queueId: b.queueId }, caller)).toEqual({
      removed: false,
    });
    await expectCode(h.manager.removeFromQueue({ threadId: "nope", queueId: "x" }, caller), "threadNotFound");
    h.server.enqueue(textReply("one"), textReply("three"));
    approval.answer({ decision: "accept" });
    const mark = h.events.length;
    await h.waitFor((n) => n.method === "turn/started", mark);
    await h.waitFor((n, e) => n.method === "thread/turn/completed" && h.events.indexOf(e) > mark);
    await h.waitFor(
      (n) =>
        n.method === "item/completed" && "text" in n.params.item && n.params.item.text === "queued-gamma",
    );
    await h.waitFor((n) => n.method === "thread/turn/completed" && h.server.requests.length === 4);
    const read = await h.manager.readThread({ threadId }, caller);
    const firstUser = read.turns.map((t) =>
      "items" in t
        ? (t.items ?? []).flatMap((i) => ("type" in i && i.type === "userMessage" ? [i.text] : []))[0]
        : "",
    );
    expect(firstUser).toEqual(["go", "queued-alpha", "queued-gamma"]);
    expect(await h.manager.removeFromQueue({ threadId, queueId: a.queueId }, caller)).toEqual({
      removed: false,
    });
    expect(c.queueId).not.toBe(a.queueId);
    const users = h.server.requests.map((r) => r.rawBody);
    expect(users.some((body) => body.includes("queued-beta"))).toBe(false);
  });

  test("add on an idle thread starts at once", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(textReply("hi"));
    const { queueId } = await h.manager.addToQueue({ threadId: thread.id, text: "now" }, h.desktop());
    expect(queueId).toBeString();
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(h.server.requests.length).toBe(1);
  });

  test("a queued input that cannot start is dropped with an error notification", async () => {
    await using h = await createHarness();
    const { threadId, approval, caller } = await runningTurn(h);
    const { queueId } = await h.manager.addToQueue({ threadId, text: "later" }, caller);
    h.models.splice(0);
    approval.answer({ decision: "accept" });
    const error = await h.waitFor((n) => n.method === "error");
    expect(error.params).toMatchObject({
      threadId,
      code: "invalidParams",
      data: { queueId, reason: "noModel" },
    });
    expect(h.server.requests.length).toBe(2);
  });
});

describe("turn/interrupt", () => {
  test("interrupt during a tool answers at once, drops the queue and completes the turn interrupted", async () => {
    await using h = await createHarness();
    const caller = h.desktop();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, approvalMode: "fullAccess" }, caller);
    h.server.enqueue(toolCallReply({ name: "bash", arguments: { command: "sleep 30" }, id: "call_sleep" }));
    await h.manager.startTurn({ threadId: thread.id, text: "sleep" }, caller);
    const started = await h.waitFor(
      (n) => n.method === "item/started" && "id" in n.params.item && n.params.item.id === "call_sleep",
    );
    const turnId = started.method === "item/started" ? started.params.turnId : "";
    await h.manager.addToQueue({ threadId: thread.id, text: "queued" }, caller);
    await expectCode(
      h.manager.interruptTurn({ threadId: thread.id, turnId: "stale" }, caller),
      "turnMismatch",
    );
    expect(await h.manager.interruptTurn({ threadId: thread.id, turnId }, caller)).toEqual({});
    await h.waitFor((n) => n.method === "turn/queue/updated" && n.params.followUp.length === 0);
    const done = await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(done.method === "thread/turn/completed" && done.params.turn.status).toBe("interrupted");
    expect(h.server.requests.length).toBe(1);
    const read = await h.manager.readThread({ threadId: thread.id }, caller);
    expect(read.turns[0]).toMatchObject({ id: turnId, status: "interrupted" });
  });

  test("interrupt during input hooks returns cancelled and launches nothing", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let entered!: () => void;
    const inHook = new Promise<void>((r) => {
      entered = r;
    });
    await using h = await createHarness({
      extensions: hostWith({
        input: async () => {
          entered();
          await gate;
          return { action: "continue" };
        },
      }),
    });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    const start = h.manager.startTurn({ threadId: thread.id, text: "x", requestId: "r" }, h.desktop());
    await inHook;
    expect(await h.manager.interruptTurn({ threadId: thread.id }, h.desktop())).toEqual({});
    release();
    expect(await start).toEqual({ status: "cancelled", threadId: thread.id, requestId: "r" });
    expect(h.events.some((e) => e.notification.method === "turn/started")).toBe(false);
    expect(h.server.requests.length).toBe(0);
  });

  test("interrupt during before_agent_start returns started and completes interrupted without a model request", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    await using h = await createHarness({ extensions: hostWith({ beforeAgentStart: () => gate }) });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    expect((await h.manager.startTurn({ threadId: thread.id, text: "x" }, h.desktop())).status).toBe(
      "started",
    );
    expect(await h.manager.interruptTurn({ threadId: thread.id }, h.desktop())).toEqual({});
    release();
    const done = await h.waitFor((n) => n.method === "turn/completed");
    expect(done.method === "turn/completed" && done.params.turn.status).toBe("interrupted");
    expect(h.server.requests.length).toBe(0);
  });
});

describe("steering in interception", () => {
  test("a steer still in its input hook when the turn settles returns invalidParams and never reaches the model", async () => {
    let entered!: () => void;
    const inHook = new Promise<void>((r) => {
      entered = r;
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    await using h = await createHarness({
      extensions: hostWith({
        input: async (event: { source: string }) => {
          if (event.source === "steer") {
            entered();
            await gate;
          }
          return { action: "continue" };
        },
      }),
    });
    const { threadId, turnId, approval, caller } = await runningTurn(h);
    const steer = h.manager.steerTurn({ threadId, expectedTurnId: turnId, text: "too late" }, caller);
    const outcome = steer.then(
      () => "accepted",
      (error: AppServerError) => error.code,
    );
    await inHook;
    approval.answer({ decision: "accept" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(await outcome).toBe("invalidParams");
    release();
    expect(h.server.requests.map((r) => r.rawBody).some((b) => b.includes("too late"))).toBe(false);
  });
});

describe("steers and recovery", () => {
  test("a steer accepted while overflow recovery decides still runs inside the same turn", async () => {
    let entered!: () => void;
    const inRecover = new Promise<void>((r) => {
      entered = r;
    });
    let decide!: (retry: boolean) => void;
    const decision = new Promise<boolean>((r) => {
      decide = r;
    });
    let calls = 0;
    await using h = await createHarness({
      compaction: {
        maybeCompact: async () => {},
        afterToolBatch: async () => false,
        recover: async () => {
          calls += 1;
          if (calls > 1) return false;
          entered();
          return decision;
        },
        contextTokens: () => undefined,
      },
    });
    const caller = h.desktop();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, caller);
    h.server.enqueue(textReply("first"), textReply("second"));
    await h.manager.startTurn({ threadId: thread.id, text: "go" }, caller);
    const started = await h.waitFor((n) => n.method === "turn/started");
    const turnId = started.method === "turn/started" ? started.params.turn.id : "";
    await inRecover;
    expect(
      await h.manager.steerTurn({ threadId: thread.id, expectedTurnId: turnId, text: "one more" }, caller),
    ).toEqual({ turnId });
    decide(false);
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(h.server.requests.length).toBe(2);
    expect((await h.server.waitForRequest(1)).rawBody).toContain("one more");
    const read = await h.manager.readThread({ threadId: thread.id }, caller);
    expect(read.turns.length).toBe(1);
    expect(read.turns[0]).toMatchObject({ id: turnId, status: "completed" });
  });
});

describe("interrupt and the queue", () => {
  test("an interrupt while a queued input's model is still resolving drops it: nothing starts", async () => {
    let gated = false;
    let entered!: () => void;
    const resolving = new Promise<void>((r) => {
      entered = r;
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let inner: ModelSource | undefined;
    const source = (): ModelSource => inner as ModelSource;
    await using h = await createHarness({
      manager: () => ({
        models: {
          list: () => source().list(),
          defaultModel: () => source().defaultModel(),
          getApiKey: (m) => source().getApiKey(m),
          available: (m) => source().available(m),
          find: async (ref) => {
            if (gated) {
              entered();
              await gate;
            }
            return source().find(ref);
          },
        },
      }),
    });
    inner = staticModelSource(h.models, { mock: "test-key" });
    const caller = h.desktop();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, caller);
    gated = true;
    const added = h.manager.addToQueue({ threadId: thread.id, text: "queued" }, caller);
    await resolving;
    expect(await h.manager.interruptTurn({ threadId: thread.id }, caller)).toEqual({});
    release();
    await added;
    await h.manager.closeAll();
    expect(h.events.some((e) => e.notification.method === "turn/started")).toBe(false);
    expect(h.server.requests.length).toBe(0);
  });
});

describe("thread/turn/completed", () => {
  test("an interrupted turn's outcome reaches every connection, not only subscribers", async () => {
    await using h = await createHarness();
    const { threadId, approval } = await runningTurn(h);
    await h.manager.interruptTurn({ threadId }, h.desktop("other"));
    expect(approval.cancelled).toBe(true);
    await h.waitFor((n) => n.method === "thread/turn/completed");
    const event = h.events.find((e) => e.notification.method === "thread/turn/completed");
    expect(event?.audience).toBe("everyone");
    expect(event?.notification.params).toMatchObject({ threadId, turn: { status: "interrupted" } });
    const notification = event?.notification;
    expect(notification?.method === "thread/turn/completed" && notification.params.turn).not.toHaveProperty(
      "items",
    );
  });
});

describe("admission serializes settings and compaction with starts", () => {
  test("a settings update while a turn runs returns turnInProgress and changes nothing", async () => {
    await using h = await createHarness();
    const { threadId, approval, caller } = await runningTurn(h);
    await expectCode(
      h.manager.updateSettings({ threadId, approvalMode: "fullAccess" }, caller),
      "turnInProgress",
    );
    approval.answer({ decision: "accept" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    const read = await h.manager.readThread({ threadId }, caller);
    expect(read.thread.approvalMode).toBe("ask");
  });

  test("a start or settings update while /compact runs returns turnInProgress", async () => {
    let entered!: () => void;
    const inCompaction = new Promise<void>((r) => {
      entered = r;
    });
    let finish!: () => void;
    const gate = new Promise<void>((r) => {
      finish = r;
    });
    await using h = await createHarness({
      compaction: {
        maybeCompact: async () => {},
        afterToolBatch: async () => false,
        recover: async () => false,
        contextTokens: () => undefined,
        manual: async () => {
          entered();
          await gate;
          return { status: "cancelled" };
        },
      },
    });
    const caller = h.desktop();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, caller);
    expect((await h.manager.startTurn({ threadId: thread.id, text: "/compact" }, caller)).status).toBe(
      "started",
    );
    await inCompaction;
    await expectCode(h.manager.startTurn({ threadId: thread.id, text: "hi" }, caller), "turnInProgress");
    await expectCode(
      h.manager.updateSettings({ threadId: thread.id, thinkingLevel: "off" }, caller),
      "turnInProgress",
    );
    finish();
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(h.server.requests.length).toBe(0);
  });
});
