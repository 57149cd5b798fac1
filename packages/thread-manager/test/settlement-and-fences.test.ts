/**
 * Live and history agree on calls left without a result; settlement hooks hold admission;
 * `thread/delete` fences in-flight starts; dropped queued inputs carry their failure's
 * code; `contextTokens` is absent while the context is unknown.
 */
import { describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AppServerError, type ServerNotification } from "@knightcode/app-server-protocol";
import { lockPathFor } from "@knightcode/session-store";
import { textReply, toolCallReply } from "@knightcode/testkit";
import {
  type ExtensionHooks,
  type ExtensionHostFactory,
  IDLE_UNLOAD_MS,
  type ModelSource,
  staticModelSource,
} from "../src/index.ts";
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

function host(hooks: ExtensionHooks): ExtensionHostFactory {
  return async () => ({ hooks, commands: [], warnings: [], dispose: async () => {} });
}

/** A promise the test resolves. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}

/** A model source whose `find` (once armed, after `skip` more calls) waits until the test opens it. */
function heldModelSource() {
  let inner: ModelSource | undefined;
  let armed = false;
  let skip = 0;
  const entered = gate();
  const release = gate();
  const source: ModelSource = {
    list: () => inner!.list(),
    defaultModel: () => inner!.defaultModel(),
    getApiKey: (m) => inner!.getApiKey(m),
    available: (m) => inner!.available(m),
    find: async (ref) => {
      if (armed && skip > 0) skip -= 1;
      else if (armed) {
        armed = false;
        entered.open();
        await release.promise;
      }
      return inner!.find(ref);
    },
  };
  return {
    source,
    init: (h: Harness) => {
      inner = staticModelSource(h.models, { mock: "test-key" });
    },
    arm: (skipCalls = 0) => {
      armed = true;
      skip = skipCalls;
    },
    entered: entered.promise,
    release: release.open,
  };
}

type Item = Extract<ServerNotification, { method: "item/completed" }>["params"]["item"];

function completedItem(h: Harness, id: string): Item | undefined {
  for (const n of h.received("c1")) {
    if (n.method === "item/completed" && n.params.item.id === id) return n.params.item;
  }
  return undefined;
}

async function readItem(h: Harness, threadId: string, id: string): Promise<Item | undefined> {
  const read = await h.manager.readThread({ threadId }, h.desktop());
  const turn = read.turns.at(-1);
  return turn && "items" in turn ? turn.items?.find((i) => i.id === id) : undefined;
}

describe("a tool result dropped by a message_end hook", () => {
  test("completes its call live as history reads it (failed, no fileChanges) once the model replies again; the running snapshot agrees", async () => {
    await using h = await createHarness({
      extensions: host({
        messageEnd: async ({ message }) => ({
          action: message.role === "toolResult" && message.toolCallId === "call_edit" ? "drop" : "keep",
        }),
      }),
    });
    writeFileSync(join(h.dir.cwd, "a.txt"), "hello world\n");
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop());
    h.server.enqueue(
      toolCallReply({
        name: "edit",
        arguments: { path: "a.txt", edits: [{ oldText: "world", newText: "there" }] },
        id: "call_edit",
      }),
      toolCallReply({ name: "write", arguments: { path: "b.txt", content: "x" }, id: "call_write" }),
      textReply("done"),
    );
    await h.manager.startTurn({ threadId: thread.id, text: "edit" }, h.desktop());
    (await h.waitForApproval(0)).answer({ decision: "accept" });
    // The turn now waits on the second call's approval: the dropped call is already final.
    const second = await h.waitForApproval(1);
    const live = completedItem(h, "call_edit");
    expect(live).toMatchObject({ type: "toolCall", toolName: "edit", status: "failed" });
    expect(live).not.toHaveProperty("fileChanges");
    const resumed = await h.manager.resumeThread({ threadId: thread.id }, h.desktop("c2"));
    expect(resumed.runningTurn?.items?.find((i) => i.id === "call_edit")).toEqual(live!);
    second.answer({ decision: "decline" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(await readItem(h, thread.id, "call_edit")).toEqual(live!);
    expect(h.received("c1").some((n) => n.method === "item/removed")).toBe(false);
  });

  test("a call left without a result when the turn ends completes live as the ended turn reads it", async () => {
    await using h = await createHarness({
      extensions: host({
        // The result is dropped, and so is the model's closing reply.
        messageEnd: async ({ message }) => ({
          action:
            message.role === "toolResult" ||
            (message.role === "assistant" && !message.content.some((c) => c.type === "toolCall"))
              ? "drop"
              : "keep",
        }),
      }),
    });
    const { thread } = await h.manager.startThread(
      { cwd: h.dir.cwd, approvalMode: "fullAccess" },
      h.desktop(),
    );
    h.server.enqueue(toolCallReply({ name: "ls", arguments: {}, id: "call_ls" }), textReply("withdrawn"));
    await h.manager.startTurn({ threadId: thread.id, text: "list" }, h.desktop());
    await h.waitFor((n) => n.method === "thread/turn/completed");
    const seen = h.received("c1");
    const at = seen.findIndex((n) => n.method === "item/completed" && n.params.item.id === "call_ls");
    expect(at).toBeGreaterThan(-1);
    expect(at).toBeLessThan(seen.findIndex((n) => n.method === "turn/completed"));
    const live = completedItem(h, "call_ls");
    expect(live).toMatchObject({ type: "toolCall", status: "failed" });
    expect(await readItem(h, thread.id, "call_ls")).toEqual(live!);
  });
});

describe("settlement hooks hold admission", () => {
  for (const hook of ["turnEnd", "agentEnd", "agentBeforeSettle"] as const) {
    test(`a turn/start while ${hook} still runs gets turnInProgress; the turn settles only after it`, async () => {
      const entered = gate();
      const release = gate();
      const settled = gate();
      let settledWhileHookRan = false;
      let calls = 0;
      const blocking = async () => {
        calls += 1;
        if (calls > 1) return;
        entered.open();
        // Released by the test, or by the turn settling without waiting for this hook.
        await Promise.race([release.promise, settled.promise]);
        settledWhileHookRan = h.events.some((e) => e.notification.method === "thread/turn/completed");
      };
      await using h = await createHarness({ extensions: host({ [hook]: blocking }) });
      h.manager.onEvent((e) => {
        if (e.notification.method === "thread/turn/completed") settled.open();
      });
      const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop());
      h.server.enqueue(textReply("first"));
      await h.manager.startTurn({ threadId: thread.id, text: "one" }, h.desktop());
      await entered.promise;
      await expectCode(
        h.manager.startTurn({ threadId: thread.id, text: "two" }, h.desktop()),
        "turnInProgress",
      );
      expect(h.manager.loadedThread(thread.id)?.status().type).toBe("active");
      release.open();
      await h.waitFor((n) => n.method === "thread/turn/completed");
      expect(settledWhileHookRan).toBe(false);
      h.server.enqueue(textReply("second"));
      const mark = h.events.length;
      expect((await h.manager.startTurn({ threadId: thread.id, text: "two" }, h.desktop())).status).toBe(
        "started",
      );
      await h.waitFor((n) => n.method === "thread/turn/completed", mark);
    });
  }
});

describe("thread/delete fences in-flight starts", () => {
  test("a start that is past the lookup but not yet admitted loses to the delete: threadNotFound, nothing runs", async () => {
    const held = heldModelSource();
    await using h = await createHarness({ manager: () => ({ models: held.source }) });
    held.init(h);
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop());
    await h.manager.archiveThread({ threadId: thread.id }, h.desktop());
    // The start loads the archived thread (one lookup of its model) and is held resolving
    // the model for the turn: past the thread lookup, not yet admitted.
    held.arm(1);
    const start = h.manager.startTurn({ threadId: thread.id, text: "late" }, h.desktop());
    await held.entered;
    expect(await h.manager.deleteThread({ threadId: thread.id }, h.desktop())).toEqual({});
    held.release();
    await expectCode(start, "threadNotFound");
    expect(h.events.some((e) => e.notification.method === "turn/started")).toBe(false);
    expect(h.server.requests.length).toBe(0);
    expect(h.manager.loadedThread(thread.id)).toBeUndefined();
    await expectCode(h.manager.readThread({ threadId: thread.id }, h.desktop()), "threadNotFound");
  });

  test("a start admitted and held in its input hook wins: the delete gets turnInProgress and the turn runs", async () => {
    const entered = gate();
    const release = gate();
    await using h = await createHarness({
      extensions: host({
        input: async () => {
          entered.open();
          await release.promise;
          return { action: "continue" };
        },
      }),
    });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop());
    await h.manager.archiveThread({ threadId: thread.id }, h.desktop());
    h.server.enqueue(textReply("still here"));
    const start = h.manager.startTurn({ threadId: thread.id, text: "first" }, h.desktop());
    await entered.promise;
    await expectCode(h.manager.deleteThread({ threadId: thread.id }, h.desktop()), "turnInProgress");
    release.open();
    expect((await start).status).toBe("started");
    const done = await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(done.method === "thread/turn/completed" && done.params.turn.status).toBe("completed");
    const read = await h.manager.readThread({ threadId: thread.id }, h.desktop());
    expect(read.turns.length).toBe(1);
    expect(h.events.some((e) => e.notification.method === "thread/deleted")).toBe(false);
  });

  test("a start whose thread idled out while it waited looks the thread up again and runs", async () => {
    const held = heldModelSource();
    await using h = await createHarness({ manager: () => ({ models: held.source }) });
    held.init(h);
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop());
    await h.manager.unsubscribe({ threadId: thread.id }, h.desktop());
    held.arm();
    h.server.enqueue(textReply("reloaded"));
    const start = h.manager.startTurn({ threadId: thread.id, text: "hi" }, h.desktop());
    await held.entered;
    const before = h.manager.loadedThread(thread.id);
    h.clock.advance(IDLE_UNLOAD_MS);
    expect(before?.closed).toBe(true);
    held.release();
    expect((await start).status).toBe("started");
    const done = await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(done.method === "thread/turn/completed" && done.params.turn.status).toBe("completed");
    expect(h.manager.loadedThread(thread.id)).not.toBe(before);
  });
});

describe("a queued input that fails to start", () => {
  test("is dropped with an error carrying the failure's wire code and data.queueId", async () => {
    const held = heldModelSource();
    await using h = await createHarness({ manager: () => ({ models: held.source }) });
    held.init(h);
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop());
    h.server.enqueue(
      toolCallReply({ name: "write", arguments: { path: "w.txt", content: "x" }, id: "call_w" }),
      textReply("after"),
    );
    await h.manager.startTurn({ threadId: thread.id, text: "go" }, h.desktop());
    const approval = await h.waitForApproval(0);
    const { queueId } = await h.manager.addToQueue({ threadId: thread.id, text: "later" }, h.desktop());
    held.arm();
    approval.answer({ decision: "accept" });
    // The queued input is about to start; meanwhile another process takes the transcript.
    await held.entered;
    rmSync(lockPathFor(thread.path!));
    held.release();
    const error = await h.waitFor(
      (n) =>
        n.method === "error" &&
        typeof n.params.data === "object" &&
        (n.params.data as { queueId?: string }).queueId === queueId,
    );
    expect(error.params).toMatchObject({
      threadId: thread.id,
      code: "threadLockedElsewhere",
      data: { queueId },
    });
    expect(h.server.requests.length).toBe(2);
  });
});

describe("contextTokens while the context is unknown", () => {
  test("after a compaction and before the next reply, usage reports leave contextTokens out", async () => {
    await using h = await createHarness({ settings: { compaction: { keepRecentTokens: 0 } } });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop());
    const usageSince = (mark: number) =>
      h.events.slice(mark).flatMap((e) => {
        const n = e.notification;
        return n.method === "thread/tokenUsage/updated" ? [n.params.usage] : [];
      });
    const turn = async (text: string) => {
      const mark = h.events.length;
      await h.manager.startTurn({ threadId: thread.id, text }, h.desktop());
      await h.waitFor((n) => n.method === "thread/turn/completed", mark);
      return mark;
    };
    h.server.enqueue(textReply("an answer"));
    const first = await turn("question");
    expect(typeof usageSince(first).at(-1)?.contextTokens).toBe("number");

    h.server.enqueue(textReply("## Goal\nall of it"));
    const compacted = await turn("/compact");
    const afterCompaction = usageSince(compacted);
    expect(afterCompaction.length).toBe(1);
    expect(afterCompaction[0]).not.toHaveProperty("contextTokens");
    expect(afterCompaction[0]?.input).toBeGreaterThan(0);
    const resumed = await h.manager.resumeThread({ threadId: thread.id }, h.desktop("c2"));
    expect(resumed.usage).not.toHaveProperty("contextTokens");

    h.server.enqueue(textReply("next answer"));
    const next = await turn("next question");
    expect(typeof usageSince(next).at(-1)?.contextTokens).toBe("number");
    const again = await h.manager.resumeThread({ threadId: thread.id }, h.desktop("c3"));
    expect(typeof again.usage.contextTokens).toBe("number");
  });
});
