import { describe, expect, test } from "bun:test";
import { AppServerError } from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import type { ExtensionHooks, ExtensionHostFactory } from "../src/index.ts";
import { createHarness } from "./support/harness.ts";

// A 1x1 PNG.
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const host =
  (hooks: ExtensionHooks): ExtensionHostFactory =>
  async () => ({ hooks, commands: [], warnings: [], dispose: async () => {} });

describe("turn outcomes", () => {
  test("a failed turn carries its error kind; summaries bound the message to 2,000 characters, history keeps it", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    const long = `Invalid API key. ${"x".repeat(3000)}`;
    h.server.enqueue({ error: { kind: "auth", message: long } });
    await h.manager.startTurn({ threadId: thread.id, text: "hi" }, h.desktop());
    const done = await h.waitFor((n) => n.method === "turn/completed");
    const turn = done.method === "turn/completed" ? done.params.turn : undefined;
    expect(turn?.status).toBe("failed");
    expect(turn?.error?.kind).toBe("auth");
    expect(turn?.error?.message.length).toBeLessThanOrEqual(2000);
    const everyone = await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(
      everyone.method === "thread/turn/completed" && everyone.params.turn.error?.message.length,
    ).toBeLessThanOrEqual(2000);
    const read = await h.manager.readThread({ threadId: thread.id }, h.desktop());
    expect(
      read.turns[0] && "error" in read.turns[0] ? read.turns[0].error?.message.length : 0,
    ).toBeGreaterThan(2000);
  });

  test("an inline image is checked by content and reaches the model", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(textReply("a dot"));
    await h.manager.startTurn(
      { threadId: thread.id, text: "what is this", images: [{ mimeType: "image/png", data: PNG }] },
      h.desktop(),
    );
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect((await h.server.waitForRequest(0)).rawBody.includes(PNG)).toBe(true);
    const bad = h.manager.startTurn(
      {
        threadId: thread.id,
        text: "x",
        images: [{ mimeType: "image/png", data: Buffer.from("text").toString("base64") }],
      },
      h.desktop(),
    );
    await expect(bad).rejects.toMatchObject({ code: "invalidParams" });
  });

  test("interrupt during an approval withdraws the request and completes the turn interrupted", async () => {
    await using h = await createHarness();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(toolCallReply({ name: "write", arguments: { path: "z", content: "1" }, id: "call_z" }));
    await h.manager.startTurn({ threadId: thread.id, text: "w" }, h.desktop());
    const approval = await h.waitForApproval(0);
    await h.manager.interruptTurn({ threadId: thread.id }, h.desktop());
    const done = await h.waitFor((n) => n.method === "turn/completed");
    expect(done.method === "turn/completed" && done.params.turn.status).toBe("interrupted");
    expect(approval.cancelled).toBe(true);
    const last = h.events.filter((e) => e.notification.method === "thread/status/changed").at(-1);
    expect(last?.notification.params).toMatchObject({ status: { type: "idle" } });
  });

  test("a steer still in its input hook when the turn is interrupted returns invalidParams", async () => {
    let entered!: () => void;
    const inHook = new Promise<void>((r) => {
      entered = r;
    });
    const never = new Promise<never>(() => {});
    await using h = await createHarness({
      extensions: host({
        input: async (event) => {
          if (event.source !== "steer") return { action: "continue" };
          entered();
          return never;
        },
      }),
    });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    h.server.enqueue(toolCallReply({ name: "write", arguments: { path: "z", content: "1" }, id: "call_z" }));
    await h.manager.startTurn({ threadId: thread.id, text: "w" }, h.desktop());
    const approval = await h.waitForApproval(0);
    const steer = h.manager.steerTurn(
      { threadId: thread.id, expectedTurnId: approval.params.turnId, text: "hold on" },
      h.desktop(),
    );
    await inHook;
    await h.manager.interruptTurn({ threadId: thread.id }, h.desktop());
    const error = await steer.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppServerError);
    expect((error as AppServerError).code).toBe("invalidParams");
    await h.waitFor((n) => n.method === "thread/turn/completed");
  });
});

describe("outcome precedence", () => {
  test("a turn that fails after being interrupted completes interrupted, without an error", async () => {
    let entered!: () => void;
    const inCompaction = new Promise<void>((r) => {
      entered = r;
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    await using h = await createHarness({
      compaction: {
        maybeCompact: async () => {
          entered();
          await gate;
          throw new Error("429 rate limit exceeded");
        },
        afterToolBatch: async () => false,
        recover: async () => false,
        contextTokens: () => undefined,
      },
    });
    const caller = h.desktop();
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, caller);
    expect((await h.manager.startTurn({ threadId: thread.id, text: "x" }, caller)).status).toBe("started");
    await inCompaction;
    await h.manager.interruptTurn({ threadId: thread.id }, caller);
    release();
    const done = await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(done.method === "thread/turn/completed" && done.params.turn.status).toBe("interrupted");
    expect(done.method === "thread/turn/completed" && done.params.turn).not.toHaveProperty("error");
    const read = await h.manager.readThread({ threadId: thread.id }, caller);
    expect(read.turns[0]).toMatchObject({ status: "interrupted" });
    expect(read.turns[0]).not.toHaveProperty("error");
    expect(h.server.requests.length).toBe(0);
  });
});
