import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerNotification } from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { createHarness, type Harness } from "./support/harness.ts";

async function writeTurn(h: Harness, file = "out.txt") {
  const caller = h.desktop();
  const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, caller);
  h.server.enqueue(
    toolCallReply({ name: "write", arguments: { path: file, content: "data" }, id: "call_w" }),
    textReply("ok"),
  );
  await h.manager.startTurn({ threadId: thread.id, text: "write it" }, caller);
  return thread.id;
}

const statuses = (h: Harness, threadId: string) =>
  h.events.flatMap((e) =>
    e.notification.method === "thread/status/changed" && e.notification.params.threadId === threadId
      ? [JSON.stringify(e.notification.params.status)]
      : [],
  );

function toolItem(list: ServerNotification[], id: string) {
  return list
    .flatMap((n) => (n.method === "item/completed" ? [n.params.item] : []))
    .find((i) => "id" in i && i.id === id);
}

describe("approvals", () => {
  test("a gated call asks the initiating subscriber, waits with waitingOn approval, and runs on accept", async () => {
    await using h = await createHarness();
    const threadId = await writeTurn(h);
    const approval = await h.waitForApproval(0);
    expect(approval.connectionId).toBe("c1");
    expect(approval.params).toMatchObject({
      threadId,
      itemId: "call_w",
      toolName: "write",
      decisions: ["accept", "acceptForSession", "decline", "cancel"],
    });
    expect(approval.params.turnId).toBe(h.manager.loadedThread(threadId)?.running?.live.id ?? "");
    expect(statuses(h, threadId).at(-1)).toBe(JSON.stringify({ type: "active", waitingOn: ["approval"] }));
    approval.answer({ decision: "accept" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(readFileSync(join(h.dir.cwd, "out.txt"), "utf8")).toBe("data");
    const seq = statuses(h, threadId);
    expect(seq).toContain(JSON.stringify({ type: "active", waitingOn: [] }));
    expect(seq.at(-1)).toBe(JSON.stringify({ type: "idle" }));
    expect(toolItem(h.received("c1"), "call_w")).toMatchObject({ status: "completed" });
  });

  test("a decline message reaches the model as the tool's decline reason", async () => {
    await using h = await createHarness();
    await writeTurn(h);
    (await h.waitForApproval(0)).answer({
      decision: "decline",
      message: "Use the project-local file instead",
    });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(existsSync(join(h.dir.cwd, "out.txt"))).toBe(false);
    const second = await h.server.waitForRequest(1);
    expect(second.rawBody).toContain("Use the project-local file instead");
    expect(toolItem(h.received("c1"), "call_w")).toMatchObject({ status: "declined" });
  });

  test("cancel blocks the call", async () => {
    await using h = await createHarness();
    await writeTurn(h);
    (await h.waitForApproval(0)).answer({ decision: "cancel" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(existsSync(join(h.dir.cwd, "out.txt"))).toBe(false);
    expect(toolItem(h.received("c1"), "call_w")).toMatchObject({ status: "declined" });
  });

  test("an unoffered decision is treated as decline and grants nothing", async () => {
    await using h = await createHarness();
    await writeTurn(h);
    (await h.waitForApproval(0)).answer({ decision: "acceptPrefixForSession" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(existsSync(join(h.dir.cwd, "out.txt"))).toBe(false);
    expect(toolItem(h.received("c1"), "call_w")).toMatchObject({ status: "declined" });
  });

  test("unsubscribing the asked connection withdraws the request and migrates it to another subscriber", async () => {
    await using h = await createHarness();
    const threadId = await writeTurn(h);
    await h.manager.resumeThread({ threadId }, h.desktop("c2"));
    const first = await h.waitForApproval(0);
    expect(first.connectionId).toBe("c1");
    expect(await h.manager.unsubscribe({ threadId }, h.desktop("c1"))).toEqual({ status: "unsubscribed" });
    const second = await h.waitForApproval(1);
    expect(first.cancelled).toBe(true);
    expect(second.connectionId).toBe("c2");
    second.answer({ decision: "accept" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(readFileSync(join(h.dir.cwd, "out.txt"), "utf8")).toBe("data");
    expect(await h.manager.unsubscribe({ threadId }, h.desktop("c1"))).toEqual({ status: "notSubscribed" });
  });

  test("with no subscriber left the request is cancelled and the call blocked", async () => {
    await using h = await createHarness();
    const threadId = await writeTurn(h);
    const first = await h.waitForApproval(0);
    h.manager.connectionClosed("c1");
    await h.waitFor((n) => n.method === "thread/turn/completed" && n.params.threadId === threadId);
    expect(h.approvals.length).toBe(1);
    expect(first.cancelled).toBe(false);
    expect(existsSync(join(h.dir.cwd, "out.txt"))).toBe(false);
  });
});

describe("approval routing and offers", () => {
  test("the most recent initiating subscriber is asked first; its disconnect migrates the request to another subscriber", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop("c1"));
    await h.manager.resumeThread({ threadId: thread.id }, h.desktop("c2"));
    h.server.enqueue(
      toolCallReply({ name: "write", arguments: { path: "out.txt", content: "data" }, id: "call_w" }),
      textReply("ok"),
    );
    await h.manager.startTurn({ threadId: thread.id, text: "write it" }, h.desktop("c2"));
    const first = await h.waitForApproval(0);
    expect(first.connectionId).toBe("c2");
    h.manager.connectionClosed("c2");
    const second = await h.waitForApproval(1);
    expect(second.connectionId).toBe("c1");
    expect(second.params).toEqual(first.params);
    second.answer({ decision: "accept" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(readFileSync(join(h.dir.cwd, "out.txt"), "utf8")).toBe("data");
  });

  test("bash is never offered acceptForSession, and answering it anyway declines without running the command", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(
      toolCallReply({ name: "bash", arguments: { command: "touch made.txt" }, id: "call_b" }),
      textReply("ok"),
    );
    await h.manager.startTurn({ threadId: thread.id, text: "run it" }, h.desktop());
    const approval = await h.waitForApproval(0);
    expect(approval.params.toolName).toBe("bash");
    expect(approval.params.decisions).not.toContain("acceptForSession");
    expect(approval.params.decisions).toContain("decline");
    approval.answer({ decision: "acceptForSession" });
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(existsSync(join(h.dir.cwd, "made.txt"))).toBe(false);
    expect(toolItem(h.received("c1"), "call_b")).toMatchObject({ status: "declined" });
  });

  test("interrupting during an approval withdraws it with a cancel and the status closes the approval once", async () => {
    await using h = await createHarness();
    const threadId = await writeTurn(h);
    const approval = await h.waitForApproval(0);
    await h.manager.interruptTurn({ threadId }, h.desktop());
    expect(approval.cancelled).toBe(true);
    await h.waitFor((n) => n.method === "thread/turn/completed");
    const seq = statuses(h, threadId);
    const waiting = JSON.stringify({ type: "active", waitingOn: ["approval"] });
    expect(seq.filter((s) => s === waiting).length).toBe(1);
    expect(seq[seq.indexOf(waiting) + 1]).toBe(JSON.stringify({ type: "active", waitingOn: [] }));
    expect(seq.at(-1)).toBe(JSON.stringify({ type: "idle" }));
  });
});
