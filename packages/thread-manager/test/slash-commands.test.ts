import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { textReply } from "@knightcode/testkit";
import type { ExtensionHostFactory } from "../src/index.ts";
import { createHarness, type Harness, methods } from "./support/harness.ts";

const LONG = "lorem ipsum dolor sit amet ".repeat(200);

const entries = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

async function turn(h: Harness, threadId: string, text: string, connection = "c1") {
  const mark = h.events.length;
  const result = await h.manager.startTurn({ threadId, text, requestId: "req-9" }, h.desktop(connection));
  if (result.status === "started") await h.waitFor((n) => n.method === "thread/turn/completed", mark);
  return { result, since: mark };
}

function userTexts(h: Harness, since: number): string[] {
  return h.events.slice(since).flatMap((e) => {
    const n = e.notification;
    return n.method === "item/completed" && n.params.item.type === "userMessage" ? [n.params.item.text] : [];
  });
}

describe("/compact", () => {
  test("runs a manual compaction with the instructions as the turn's work, without a model reply", async () => {
    const seen: { reason: string; customInstructions: string | undefined }[] = [];
    const extensions: ExtensionHostFactory = async () => ({
      hooks: {
        sessionBeforeCompact: async (event) => {
          seen.push({ reason: event.reason, customInstructions: event.customInstructions });
          return undefined;
        },
      },
      commands: [],
      warnings: [],
      dispose: async () => {},
    });
    await using h = await createHarness({ extensions, settings: { compaction: { keepRecentTokens: 100 } } });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue({ steps: [{ type: "text", text: LONG }] }, { steps: [{ type: "text", text: LONG }] });
    await turn(h, thread.id, "first question");
    await turn(h, thread.id, "second question");
    // The newest span is split: a history summary and a prefix summary, no model reply.
    h.server.enqueue(textReply("## Goal\nmanual summary"), textReply("prefix summary"));
    const { result, since } = await turn(h, thread.id, "/compact keep the API decisions");
    expect(result).toEqual({ status: "started", threadId: thread.id, requestId: "req-9" });
    expect(seen).toEqual([{ reason: "manual", customInstructions: "keep the API decisions" }]);
    expect(h.server.requests.length).toBe(4);
    const summaries = h.server.requests.slice(2).map((r) => r.rawBody);
    expect(summaries.some((body) => body.includes("Additional focus: keep the API decisions"))).toBe(true);
    const started = h.events.slice(since).find((e) => e.notification.method === "turn/started");
    expect(started?.notification.params).toMatchObject({ requestId: "req-9" });
    const completed = h.events.slice(since).flatMap((e) => {
      const n = e.notification;
      return n.method === "item/completed" ? [n.params.item.type] : [];
    });
    expect(completed).toEqual(["compaction"]);
    const done = h.events.slice(since).find((e) => e.notification.method === "turn/completed");
    expect(done?.notification.method === "turn/completed" && done.notification.params.turn.status).toBe(
      "completed",
    );
    const types = entries(thread.path!).map((e) => e.type);
    expect(types.slice(-3)).toEqual(["turn_start", "compaction", "turn_end"]);
  });

  test("retain-none: the compaction written through the session's reserved ID names itself as first kept", async () => {
    await using h = await createHarness({ settings: { compaction: { keepRecentTokens: 0 } } });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(textReply("an answer"));
    await turn(h, thread.id, "ZEBRA-QUESTION");
    h.server.enqueue(textReply("## Goal\nall of it"));
    await turn(h, thread.id, "/compact");
    const compaction = entries(thread.path!).find((e) => e.type === "compaction")!;
    expect(compaction.firstKeptEntryId).toBe(compaction.id);
    h.server.enqueue(textReply("next"));
    await turn(h, thread.id, "next question");
    const last = h.server.requests.at(-1)!.rawBody;
    expect(last.includes("all of it")).toBe(true);
    expect(last.includes("ZEBRA-QUESTION")).toBe(false);
  });

  test("with nothing to compact the turn fails with the reason and no model request", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    const { since } = await turn(h, thread.id, "/compact");
    const done = h.events.slice(since).find((e) => e.notification.method === "turn/completed");
    expect(done?.notification.method === "turn/completed" && done.notification.params.turn).toMatchObject({
      status: "failed",
      error: { kind: "other" },
    });
    expect(h.server.requests.length).toBe(0);
  });

  test("interrupted while summarizing completes interrupted and writes no compaction", async () => {
    await using h = await createHarness({ settings: { compaction: { keepRecentTokens: 100 } } });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue({ steps: [{ type: "text", text: LONG }] });
    await turn(h, thread.id, "first question");
    h.server.enqueue({
      steps: [{ type: "text", text: "## Goal\nnever finished", deltas: 4 }],
      stallAfterEvents: 1,
    });
    const mark = h.events.length;
    await h.manager.startTurn({ threadId: thread.id, text: "/compact" }, h.desktop());
    await h.server.waitForRequest(1);
    await h.manager.interruptTurn({ threadId: thread.id }, h.desktop());
    const done = await h.waitFor((n) => n.method === "thread/turn/completed", mark);
    expect(done.method === "thread/turn/completed" && done.params.turn.status).toBe("interrupted");
    expect(entries(thread.path!).some((e) => e.type === "compaction")).toBe(false);
  });
});

describe("/name", () => {
  test("sets the session name and broadcasts the updated thread; no turn runs", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    const { result, since } = await turn(h, thread.id, "/name Release checklist");
    expect(result).toEqual({ status: "handled", threadId: thread.id, requestId: "req-9" });
    const broadcast = h.events
      .slice(since)
      .find((e) => e.audience === "everyone" && e.notification.method === "thread/started");
    expect(broadcast?.notification.params).toMatchObject({
      thread: { id: thread.id, name: "Release checklist", title: "Release checklist" },
    });
    expect(
      methods(h.received("c1").slice(since), (m) => m.startsWith("turn/") || m.startsWith("item/")),
    ).toEqual([]);
    expect(entries(thread.path!).at(-1)).toMatchObject({ type: "session_info", name: "Release checklist" });
    const listed = await h.manager.listThreads({}, h.desktop());
    expect(listed.threads[0]?.name).toBe("Release checklist");
    const error = await h.manager
      .startTurn({ threadId: thread.id, text: "/name" }, h.desktop())
      .catch((e) => e);
    expect(error.code).toBe("invalidParams");
  });
});

describe("session-replacing commands", () => {
  test("/new creates a thread, sends thread/replaced to subscribers, moves their subscriptions, returns the new threadId", async () => {
    await using h = await createHarness();
    const { thread: old } = await h.manager.startThread(
      { cwd: h.dir.cwd, approvalMode: "autoEdit" },
      h.desktop(),
    );
    await h.manager.resumeThread({ threadId: old.id }, h.desktop("c2"));
    const { result, since } = await turn(h, old.id, "/new");
    expect(result.status).toBe("handled");
    expect(result.requestId).toBe("req-9");
    expect(result.threadId).not.toBe(old.id);
    for (const connection of ["c1", "c2"]) {
      const replaced = h
        .received(connection)
        .slice(since)
        .find((n) => n.method === "thread/replaced");
      expect(replaced?.params).toMatchObject({ oldThreadId: old.id, thread: { id: result.threadId } });
    }
    const fresh = h.manager.loadedThread(result.threadId)!;
    expect([...fresh.subscribers].sort()).toEqual(["c1", "c2"]);
    expect(h.manager.loadedThread(old.id)?.subscribers ?? []).toEqual([]);
    expect(fresh.settings.approvalMode).toBe("autoEdit");
    expect(fresh.cwd).toBe(old.cwd);
    // The new thread takes turns; its notifications reach the moved subscribers.
    h.server.enqueue(textReply("fresh start"));
    const next = await turn(h, result.threadId, "hello again");
    expect(next.result).toMatchObject({ status: "started", threadId: result.threadId });
    expect(
      h
        .received("c2")
        .slice(next.since)
        .some((n) => n.method === "turn/completed"),
    ).toBe(true);
  });

  test("/fork forks the current branch as '<title> (fork)' and replaces the thread for its subscribers", async () => {
    await using h = await createHarness();
    const { thread: old } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(textReply("answer"));
    await turn(h, old.id, "Plan the migration");
    const { result, since } = await turn(h, old.id, "/fork");
    expect(result.status).toBe("handled");
    const replaced = h
      .received("c1")
      .slice(since)
      .find((n) => n.method === "thread/replaced");
    expect(replaced?.params).toMatchObject({
      oldThreadId: old.id,
      thread: { id: result.threadId, name: "Plan the migration (fork)", forkedFromId: old.id },
    });
    const read = await h.manager.readThread({ threadId: result.threadId }, h.desktop());
    expect(read.turns.length).toBe(1);
  });
});

describe("prompt templates and skills", () => {
  test("a template expands with $1 and $@ arguments and a skill injects its instructions into the user message", async () => {
    await using h = await createHarness();
    mkdirSync(join(h.dir.agentDir, "prompts"), { recursive: true });
    writeFileSync(
      join(h.dir.agentDir, "prompts", "review.md"),
      "---\ndescription: Review a file\n---\nReview $1 carefully. Everything: $@",
    );
    mkdirSync(join(h.dir.agentDir, "skills", "lint"), { recursive: true });
    writeFileSync(
      join(h.dir.agentDir, "skills", "lint", "SKILL.md"),
      "---\nname: lint\ndescription: Lint the code\n---\nRun the linter and fix every finding.",
    );
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(textReply("ok"), textReply("ok"), textReply("ok"));
    const a = await turn(h, thread.id, '/review src/a.ts "with care"');
    expect(userTexts(h, a.since)).toEqual(["Review src/a.ts carefully. Everything: src/a.ts with care"]);
    const b = await turn(h, thread.id, "/skill:lint src");
    const [skillText] = userTexts(h, b.since);
    expect(skillText).toContain('<skill name="lint"');
    expect(skillText).toContain("Run the linter and fix every finding.");
    expect(skillText?.endsWith("src")).toBe(true);
    expect(h.server.requests[1]!.rawBody.includes("Run the linter and fix every finding.")).toBe(true);
    const c = await turn(h, thread.id, "/unknown stays as typed");
    expect(userTexts(h, c.since)).toEqual(["/unknown stays as typed"]);
  });

  test("command/list offers built-ins, extension commands, templates and skill:<name>, never usage, llama or undo", async () => {
    const extensions: ExtensionHostFactory = async () => ({
      hooks: {},
      commands: [{ name: "deploy", description: "Deploy it" }],
      warnings: [],
      dispose: async () => {},
    });
    await using h = await createHarness({ extensions });
    mkdirSync(join(h.dir.agentDir, "prompts"), { recursive: true });
    for (const name of ["review", "usage", "undo"]) {
      writeFileSync(join(h.dir.agentDir, "prompts", `${name}.md`), `Template ${name}`);
    }
    mkdirSync(join(h.dir.agentDir, "skills", "lint"), { recursive: true });
    writeFileSync(
      join(h.dir.agentDir, "skills", "lint", "SKILL.md"),
      "---\nname: lint\ndescription: Lint the code\n---\nbody",
    );
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    const forThread = (await h.manager.listCommands({ threadId: thread.id }, h.desktop())).commands;
    expect(forThread.map((c) => c.name)).toEqual([
      "compact",
      "name",
      "new",
      "fork",
      "reload",
      "deploy",
      "review",
      "skill:lint",
    ]);
    const forCwd = (await h.manager.listCommands({ cwd: h.dir.cwd }, h.desktop())).commands;
    expect(forCwd.map((c) => c.name)).toEqual([
      "compact",
      "name",
      "new",
      "fork",
      "reload",
      "review",
      "skill:lint",
    ]);
  });

  test("an extension command typed in turn/start runs and the input is handled", async () => {
    const ran: string[] = [];
    const extensions: ExtensionHostFactory = async () => ({
      hooks: {},
      commands: [{ name: "deploy", description: "Deploy it" }],
      runCommand: async (name, args) => {
        ran.push(`${name}:${args}`);
      },
      warnings: [],
      dispose: async () => {},
    });
    await using h = await createHarness({ extensions });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    const { result } = await turn(h, thread.id, "/deploy staging now");
    expect(result).toEqual({ status: "handled", threadId: thread.id, requestId: "req-9" });
    expect(ran).toEqual(["deploy:staging now"]);
    expect(h.server.requests.length).toBe(0);
  });

  test("an interrupt while an extension command runs makes the start cancelled; the command still finishes", async () => {
    const release = Promise.withResolvers<void>();
    const entered = Promise.withResolvers<void>();
    let finished = false;
    const extensions: ExtensionHostFactory = async () => ({
      hooks: {},
      commands: [{ name: "deploy", description: "Deploy it" }],
      runCommand: async () => {
        entered.resolve();
        await release.promise;
        finished = true;
      },
      warnings: [],
      dispose: async () => {},
    });
    await using h = await createHarness({ extensions });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    const start = h.manager.startTurn({ threadId: thread.id, text: "/deploy", requestId: "r" }, h.desktop());
    await entered.promise;
    expect(await h.manager.interruptTurn({ threadId: thread.id }, h.desktop())).toEqual({});
    release.resolve();
    expect(await start).toEqual({ status: "cancelled", threadId: thread.id, requestId: "r" });
    expect(finished).toBe(true);
    expect(h.manager.loadedThread(thread.id)?.busy).toBe(false);
  });
});
