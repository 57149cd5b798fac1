import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { AppServerError } from "@knightcode/app-server-protocol";
import { lockPathFor } from "@knightcode/session-store";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { IDLE_UNLOAD_MS } from "../src/index.ts";
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

async function oneTurn(h: Harness, threadId: string, text: string, reply = "ok") {
  h.server.enqueue(textReply(reply));
  const mark = h.events.length;
  await h.manager.startTurn({ threadId, text }, h.desktop());
  await h.waitFor((n) => n.method === "thread/turn/completed" && n.params.threadId === threadId, mark);
}

describe("thread/start", () => {
  test("desktop threads default to ask and terminal threads to fullAccess; the mode persists on the branch", async () => {
    await using h = await createHarness();
    const desktop = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    const terminal = await h.manager.startThread(
      { cwd: h.dir.cwd },
      { connectionId: "t", clientKind: "terminal" },
    );
    expect(desktop.thread.approvalMode).toBe("ask");
    expect(terminal.thread.approvalMode).toBe("fullAccess");
    expect(desktop.thread).toMatchObject({
      cwd: h.dir.cwd,
      status: { type: "idle" },
      model: { provider: "mock" },
    });
    // no file until the thread is used; its first turn writes the settings before it
    expect(existsSync(desktop.thread.path!)).toBe(false);
    await oneTurn(h, desktop.thread.id, "first");
    expect(readFileSync(desktop.thread.path!, "utf8")).toMatch(/"type":"approval_mode".*"mode":"ask"/);
    expect(
      h.events.filter((e) => e.notification.method === "thread/started" && e.audience === "everyone").length,
    ).toBe(2);
  });

  test("a thread that never got input leaves no file: thread/read works, thread/list skips it, unloading leaves nothing", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    await h.manager.updateSettings({ threadId: thread.id, approvalMode: "autoEdit" }, h.desktop());
    const read = await h.manager.readThread({ threadId: thread.id }, h.desktop());
    expect(read.thread).toMatchObject({ id: thread.id, approvalMode: "autoEdit" });
    expect(read.turns).toEqual([]);
    expect((await h.manager.listThreads({}, h.desktop())).threads).toEqual([]);
    expect(existsSync(thread.path!)).toBe(false);
    expect(existsSync(lockPathFor(thread.path!))).toBe(false);
    await h.manager.unsubscribe({ threadId: thread.id }, h.desktop());
    h.clock.advance(IDLE_UNLOAD_MS);
    expect(h.manager.diagnostics().loadedThreads).toBe(0);
    await expectCode(h.manager.resumeThread({ threadId: thread.id }, h.desktop()), "threadNotFound");
  });

  test("a named thread is written at start; an unnamed one from its first !command", async () => {
    await using h = await createHarness();
    const named = await h.manager.startThread({ cwd: h.dir.cwd, name: "kept" }, h.desktop());
    expect(readFileSync(named.thread.path!, "utf8")).toContain('"name":"kept"');
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    await h.manager.runShell({ threadId: thread.id, command: "echo used" }, h.desktop());
    expect(readFileSync(thread.path!, "utf8")).toContain("bashExecution");
    const listed = await h.manager.listThreads({}, h.desktop());
    expect(listed.threads.map((t) => t.id).sort()).toEqual([named.thread.id, thread.id].sort());
  });

  test("a cwd that is not a directory returns invalidParams", async () => {
    await using h = await createHarness();
    await expectCode(h.manager.startThread({ cwd: join(h.dir.cwd, "nope") }, h.desktop()), "invalidParams");
  });

  test("undecided trust for a project with local resources is a trust warning", async () => {
    await using h = await createHarness();
    await Bun.write(join(h.dir.cwd, ".knightcode", "settings.json"), "{}");
    const { warnings } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    expect(warnings.some((w) => w.source === "trust")).toBe(true);
  });
});

describe("thread/fork", () => {
  test("a fork is named after its source with (fork) and records the parent's header ID", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    await oneTurn(h, thread.id, "explain the repository");
    const { thread: fork } = await h.manager.forkThread({ threadId: thread.id }, h.desktop());
    expect(fork.id).not.toBe(thread.id);
    expect(fork.name).toBe("explain the repository (fork)");
    expect(fork.forkedFromId).toBe(thread.id);
    const read = await h.manager.readThread({ threadId: fork.id }, h.desktop());
    expect(read.turns.length).toBe(1);
    expect(read.turns[0]).toMatchObject({ status: "completed" });
    const named = await h.manager.forkThread({ threadId: thread.id, name: "Try B" }, h.desktop());
    expect(named.thread.name).toBe("Try B");
  });
});

describe("thread/resume and thread/read", () => {
  test("resume of a thread with a running turn returns snapshots consistent with the events that follow", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(
      toolCallReply({ name: "write", arguments: { path: "x.txt", content: "1" }, id: "call_x" }),
      textReply("finished"),
    );
    await h.manager.startTurn({ threadId: thread.id, text: "work" }, h.desktop());
    const approval = await h.waitForApproval(0);
    await h.manager.addToQueue({ threadId: thread.id, text: "next-one" }, h.desktop());
    const resumed = await h.manager.resumeThread({ threadId: thread.id }, h.desktop("c2"));
    const mark = h.events.length;
    expect(resumed.runningTurn).toMatchObject({ id: approval.params.turnId, status: "inProgress" });
    const runningItems = resumed.runningTurn?.items ?? [];
    expect(runningItems.map((i) => ("id" in i ? i.id : ""))).toContain("call_x");
    expect(resumed.queue.followUp.map((f) => f.text)).toEqual(["next-one"]);
    expect(resumed.usage.contextWindow).toBe(100_000);
    expect(resumed.turns.at(-1)).toMatchObject({ id: approval.params.turnId, status: "inProgress" });
    h.server.enqueue(textReply("queued answer"));
    approval.answer({ decision: "accept" });
    await h.waitFor((n) => n.method === "thread/turn/completed", mark);
    // Everything after the snapshot reached the new subscriber: the call's completion and the turn's end.
    const after = h.events
      .slice(mark)
      .filter((e) => e.audience === "everyone" || e.connectionIds.includes("c2"));
    const methods = after.map((e) => e.notification.method);
    expect(methods).toContain("item/completed");
    expect(methods).toContain("turn/completed");
  });

  test("an invalid cursor returns invalidCursor and subscribes nobody", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    await expectCode(
      h.manager.resumeThread({ threadId: thread.id, cursor: "garbage" }, h.desktop("c9")),
      "invalidCursor",
    );
    expect(h.manager.loadedThread(thread.id)?.subscribers).not.toContain("c9");
    await expectCode(
      h.manager.readThread({ threadId: thread.id, cursor: "h1.e30" }, h.desktop()),
      "invalidCursor",
    );
  });

  test("read works while another process owns the file; resume returns threadLockedElsewhere", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    await oneTurn(h, thread.id, "hello");
    const path = thread.path!;
    const before = readFileSync(path);
    await h.manager.unsubscribe({ threadId: thread.id }, h.desktop());
    h.clock.advance(IDLE_UNLOAD_MS);
    expect(h.manager.loadedThread(thread.id)).toBeUndefined();
    const child = Bun.spawn(["bun", join(import.meta.dir, "support", "hold-lock.ts"), path], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "inherit",
    });
    try {
      const reader = child.stdout.getReader();
      const { value } = await reader.read();
      expect(new TextDecoder().decode(value)).toContain("locked");
      const read = await h.manager.readThread({ threadId: thread.id }, h.desktop());
      expect(read.turns.length).toBe(1);
      expect(read.thread.status).toEqual({ type: "notLoaded" });
      expect(readFileSync(path)).toEqual(before);
      await expectCode(h.manager.resumeThread({ threadId: thread.id }, h.desktop()), "threadLockedElsewhere");
    } finally {
      child.stdin.end();
      await child.exited;
    }
    const resumed = await h.manager.resumeThread({ threadId: thread.id }, h.desktop());
    expect(resumed.turns.length).toBe(1);
  });
});

describe("idle unload and ownership", () => {
  test("a thread unloads after ten idle minutes without subscribers, releasing its lock", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop());
    const lock = lockPathFor(thread.path!);
    expect(existsSync(lock)).toBe(true);
    await h.manager.unsubscribe({ threadId: thread.id }, h.desktop());
    h.clock.advance(IDLE_UNLOAD_MS - 1);
    expect(h.manager.diagnostics().loadedThreads).toBe(1);
    h.clock.advance(1);
    expect(h.manager.diagnostics().loadedThreads).toBe(0);
    expect(existsSync(lock)).toBe(false);
    const last = h.events.filter((e) => e.notification.method === "thread/status/changed").at(-1);
    expect(last?.notification.params).toEqual({ threadId: thread.id, status: { type: "notLoaded" } });
  });

  test("a subscribed thread or one with running work does not unload", async () => {
    await using h = await createHarness();
    await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.clock.advance(IDLE_UNLOAD_MS * 2);
    expect(h.manager.diagnostics().loadedThreads).toBe(1);
  });

  test("ownership loss closes the thread with an error and a systemError status until a reload", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop());
    rmSync(lockPathFor(thread.path!));
    await expectCode(
      h.manager.startTurn({ threadId: thread.id, text: "x" }, h.desktop()),
      "threadLockedElsewhere",
    );
    const error = await h.waitFor((n) => n.method === "error");
    expect(error.params).toMatchObject({ threadId: thread.id });
    const status = await h.waitFor(
      (n) => n.method === "thread/status/changed" && n.params.status.type === "systemError",
    );
    expect(status.params).toMatchObject({ threadId: thread.id });
    expect(h.manager.diagnostics().loadedThreads).toBe(0);
    const listed = await h.manager.listThreads({}, h.desktop());
    expect(listed.threads.find((t) => t.id === thread.id)?.status.type).toBe("systemError");
    const resumed = await h.manager.resumeThread({ threadId: thread.id }, h.desktop());
    expect(resumed.thread.status).toEqual({ type: "idle" });
  });
});

describe("list, archive, unarchive, delete", () => {
  test("list shows threads newest first; archive moves them; delete needs archive first", async () => {
    await using h = await createHarness();
    const a = (await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop())).thread;
    const b = (await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop())).thread;
    const listed = await h.manager.listThreads({}, h.desktop());
    expect(listed.threads.map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
    await expectCode(h.manager.deleteThread({ threadId: a.id }, h.desktop()), "threadNotArchived");
    await h.manager.archiveThread({ threadId: a.id }, h.desktop());
    expect((await h.manager.listThreads({}, h.desktop())).threads.map((t) => t.id)).toEqual([b.id]);
    expect((await h.manager.listThreads({ archived: true }, h.desktop())).threads.map((t) => t.id)).toEqual([
      a.id,
    ]);
    await h.manager.unarchiveThread({ threadId: a.id }, h.desktop());
    await h.manager.archiveThread({ threadId: a.id }, h.desktop());
    expect(await h.manager.deleteThread({ threadId: a.id }, h.desktop())).toEqual({});
    expect(
      h.events.some((e) => e.notification.method === "thread/deleted" && e.audience === "everyone"),
    ).toBe(true);
    await expectCode(h.manager.deleteThread({ threadId: a.id }, h.desktop()), "threadNotFound");
    await expectCode(h.manager.readThread({ threadId: a.id }, h.desktop()), "threadNotFound");
  });

  test("archive and delete refuse a thread with running work", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(
      toolCallReply({ name: "write", arguments: { path: "y", content: "1" }, id: "c" }),
      textReply("k"),
    );
    await h.manager.startTurn({ threadId: thread.id, text: "w" }, h.desktop());
    const approval = await h.waitForApproval(0);
    await expectCode(h.manager.archiveThread({ threadId: thread.id }, h.desktop()), "turnInProgress");
    approval.answer({ decision: "decline" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
  });
});

describe("settings and models", () => {
  test("settings update persists model, thinking level and approval mode on the branch", async () => {
    await using h = await createHarness({ reasoning: true });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop());
    const updated = await h.manager.updateSettings(
      {
        threadId: thread.id,
        thinkingLevel: "high",
        approvalMode: "autoEdit",
        model: { provider: "mock", id: "mock-model" },
      },
      h.desktop(),
    );
    expect(updated.thread).toMatchObject({ thinkingLevel: "high", approvalMode: "autoEdit" });
    await expectCode(
      h.manager.updateSettings(
        { threadId: thread.id, model: { provider: "mock", id: "missing" } },
        h.desktop(),
      ),
      "invalidParams",
    );
    await expectCode(
      h.manager.updateSettings({ threadId: thread.id, thinkingLevel: "xhigh" }, h.desktop()),
      "invalidParams",
    );
    await h.manager.unsubscribe({ threadId: thread.id }, h.desktop());
    h.clock.advance(IDLE_UNLOAD_MS);
    const resumed = await h.manager.resumeThread({ threadId: thread.id }, h.desktop());
    expect(resumed.thread).toMatchObject({ thinkingLevel: "high", approvalMode: "autoEdit" });
  });

  test("model/list reports thinkingLevels per model", async () => {
    await using h = await createHarness();
    const { models } = await h.manager.listModels({}, h.desktop());
    expect(models).toEqual([
      expect.objectContaining({
        provider: "mock",
        id: "mock-model",
        thinkingLevels: ["off"],
        available: true,
      }),
    ]);
  });
});

describe("token usage", () => {
  test("thread/tokenUsage/updated follows each finalized reply with cumulative totals", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue({ steps: [{ type: "text", text: "a" }], usage: { input: 100, output: 10 } });
    await h.manager.startTurn({ threadId: thread.id, text: "one" }, h.desktop());
    await h.waitFor((n) => n.method === "thread/turn/completed");
    h.server.enqueue({ steps: [{ type: "text", text: "b" }], usage: { input: 200, output: 20 } });
    const mark = h.events.length;
    await h.manager.startTurn({ threadId: thread.id, text: "two" }, h.desktop());
    await h.waitFor((n) => n.method === "thread/turn/completed", mark);
    const updates = h.events.flatMap((e) =>
      e.notification.method === "thread/tokenUsage/updated" ? [e.notification.params] : [],
    );
    expect(updates.length).toBe(2);
    expect(updates[0]?.usage).toMatchObject({ input: 100, output: 10, contextWindow: 100_000 });
    expect(updates[1]?.usage).toMatchObject({ input: 300, output: 30 });
    expect(updates[1]?.usage.cost).toBeGreaterThan(updates[0]!.usage.cost);
    expect(typeof updates[1]?.usage.contextTokens).toBe("number");
  });
});

describe("command/list", () => {
  test("lists prompt templates for a cwd without starting a thread", async () => {
    await using h = await createHarness();
    await Bun.write(
      join(h.dir.agentDir, "prompts", "review.md"),
      "---\ndescription: Review the diff\n---\nReview it.",
    );
    const { commands } = await h.manager.listCommands({ cwd: h.dir.cwd }, h.desktop());
    expect(commands).toContainEqual({ name: "review", description: "Review the diff", source: "template" });
    expect(h.manager.diagnostics().loadedThreads).toBe(0);
    await expectCode(h.manager.listCommands({ threadId: "missing" }, h.desktop()), "threadNotFound");
  });
});

describe("closeAll", () => {
  test("interrupts running work, unloads every thread, releases locks and refuses new work", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(toolCallReply({ name: "write", arguments: { path: "q", content: "1" }, id: "call_q" }));
    await h.manager.startTurn({ threadId: thread.id, text: "w" }, h.desktop());
    const approval = await h.waitForApproval(0);
    await h.manager.closeAll();
    expect(approval.cancelled).toBe(true);
    expect(h.manager.diagnostics().loadedThreads).toBe(0);
    expect(existsSync(lockPathFor(thread.path!))).toBe(false);
    const done = h.events.find((e) => e.notification.method === "thread/turn/completed");
    expect(done?.notification.params).toMatchObject({ turn: { status: "interrupted" } });
    await expectCode(h.manager.startThread({ cwd: h.dir.cwd }, h.desktop()), "shuttingDown");
  });
});

describe("idle unload after a failed request", () => {
  test("a thread loaded by a turn/start that then fails subscribes nobody and still unloads after ten idle minutes", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop());
    await h.manager.unsubscribe({ threadId: thread.id }, h.desktop());
    h.clock.advance(IDLE_UNLOAD_MS);
    expect(h.manager.diagnostics().loadedThreads).toBe(0);
    await expectCode(
      h.manager.startTurn(
        { threadId: thread.id, text: "x", images: [{ path: "relative.png" }] },
        h.desktop("c2"),
      ),
      "invalidParams",
    );
    expect(h.manager.diagnostics().loadedThreads).toBe(1);
    expect(existsSync(lockPathFor(thread.path!))).toBe(true);
    h.clock.advance(IDLE_UNLOAD_MS);
    expect(h.manager.diagnostics().loadedThreads).toBe(0);
    expect(existsSync(lockPathFor(thread.path!))).toBe(false);
  });
});

describe("thread times and read-only reads", () => {
  test("a loaded thread's updatedAt is its latest entry time; thread/read of an unloaded thread writes and locks nothing", async () => {
    await using h = await createHarness();
    const caller = h.desktop();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, caller);
    h.clock.advance(60_000);
    h.server.enqueue(textReply("hello"));
    await h.manager.startTurn({ threadId: thread.id, text: "hi" }, caller);
    await h.waitFor((n) => n.method === "thread/turn/completed");
    const loaded = (await h.manager.readThread({ threadId: thread.id }, caller)).thread;
    const lines = readFileSync(thread.path!, "utf8").trim().split("\n");
    const lastEntry = JSON.parse(lines.at(-1)!) as { timestamp: string };
    expect(loaded.updatedAt).toBe(lastEntry.timestamp);
    expect(loaded.updatedAt).not.toBe(loaded.createdAt);

    await h.manager.unsubscribe({ threadId: thread.id }, caller);
    h.clock.advance(IDLE_UNLOAD_MS);
    expect(h.manager.diagnostics().loadedThreads).toBe(0);
    const before = readFileSync(thread.path!, "utf8");
    const mtime = statSync(thread.path!).mtimeMs;
    const read = await h.manager.readThread({ threadId: thread.id }, h.desktop("reader"));
    expect(read.thread.status).toEqual({ type: "notLoaded" });
    expect(read.turns.length).toBe(1);
    expect(h.manager.diagnostics().loadedThreads).toBe(0);
    expect(existsSync(lockPathFor(thread.path!))).toBe(false);
    expect(readFileSync(thread.path!, "utf8")).toBe(before);
    expect(statSync(thread.path!).mtimeMs).toBe(mtime);
  });
});

describe("token usage around tools", () => {
  test("a reply before its tool results reports usage before the tool call completes; unknown context leaves contextTokens out", async () => {
    await using h = await createHarness({
      compaction: {
        maybeCompact: async () => {},
        afterToolBatch: async () => false,
        recover: async () => false,
        contextTokens: () => undefined,
      },
    });
    const caller = h.desktop();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, caller);
    h.server.enqueue(toolCallReply({ name: "ls", arguments: {}, id: "call_ls" }), textReply("done"));
    await h.manager.startTurn({ threadId: thread.id, text: "list" }, caller);
    await h.waitFor((n) => n.method === "thread/turn/completed");
    const seen = h.received("c1");
    const usageAt = seen.flatMap((n, i) => (n.method === "thread/tokenUsage/updated" ? [i] : []));
    const callDone = seen.findIndex(
      (n) => n.method === "item/completed" && "id" in n.params.item && n.params.item.id === "call_ls",
    );
    expect(usageAt.length).toBe(2);
    expect(callDone).toBeGreaterThan(-1);
    expect(usageAt[0]).toBeLessThan(callDone);
    for (const i of usageAt) {
      const n = seen[i];
      expect(n?.method === "thread/tokenUsage/updated" && n.params.usage).not.toHaveProperty("contextTokens");
    }
    const resumed = await h.manager.resumeThread({ threadId: thread.id }, caller);
    expect(resumed.usage).not.toHaveProperty("contextTokens");
    expect(resumed.usage.contextWindow).toBe(100_000);
  });
});
