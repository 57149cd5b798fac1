import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { AppServerError } from "@knightcode/app-server-protocol";
import { projectDirName, SessionFile, sessionsRoot } from "@knightcode/session-store";
import { createHarness, type Harness } from "./support/harness.ts";

/** Writes a transcript of `count` completed marker turns (user text `question <i>` plus `pad`). */
async function writeTranscript(h: Harness, count: number, pad = ""): Promise<string> {
  const dir = join(sessionsRoot(h.dir.agentDir), projectDirName(h.dir.cwd));
  const session = await SessionFile.create({ dir, cwd: h.dir.cwd });
  session.append({ type: "model_change", provider: h.model.provider, modelId: h.model.id });
  for (let i = 0; i < count; i++) {
    const start = session.append({ type: "turn_start", startedAt: 1000 * i });
    session.append({
      type: "message",
      message: { role: "user", content: `question ${i}${pad}`, timestamp: 1000 * i + 1 },
    });
    session.append({ type: "turn_end", turnId: start.id, outcome: "completed", completedAt: 1000 * i + 2 });
  }
  session.sync();
  session.close();
  return session.id;
}

const firstText = (turn: unknown) => {
  const items = (turn as { items?: { type: string; text?: string }[] }).items ?? [];
  return items
    .find((i) => i.type === "userMessage")
    ?.text?.split(" ")
    .slice(0, 2)
    .join(" ");
};

/** The 1 MiB history response budget minus the app server's 8 KiB envelope reserve. */
const SENDABLE_BYTES = 1024 * 1024 - 8 * 1024;
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe("history pages", () => {
  test("pages hold at most 50 turns, newest page first, chronological within; cursors survive appends", async () => {
    await using h = await createHarness();
    const threadId = await writeTranscript(h, 60);
    const first = await h.manager.resumeThread({ threadId }, h.desktop());
    expect(first.turns.length).toBe(50);
    expect(firstText(first.turns[0])).toBe("question 10");
    expect(firstText(first.turns.at(-1))).toBe("question 59");
    expect(first.nextCursor).toBeString();
    // A new turn after the first page does not shift the older page.
    h.server.enqueue({ steps: [{ type: "text", text: "hi" }] });
    await h.manager.startTurn({ threadId, text: "question 60" }, h.desktop());
    await h.waitFor((n) => n.method === "thread/turn/completed");
    const older = await h.manager.readThread({ threadId, cursor: first.nextCursor! }, h.desktop());
    expect(older.turns.map(firstText)).toEqual(Array.from({ length: 10 }, (_, i) => `question ${i}`));
    expect(older.nextCursor).toBeUndefined();
  });

  test("a cursor from another thread is invalidCursor", async () => {
    await using h = await createHarness();
    const a = await writeTranscript(h, 55);
    const b = await writeTranscript(h, 55);
    const page = await h.manager.readThread({ threadId: a }, h.desktop());
    const error = await h.manager
      .readThread({ threadId: b, cursor: page.nextCursor! }, h.desktop())
      .catch((e) => e);
    expect(error).toBeInstanceOf(AppServerError);
    expect((error as AppServerError).code).toBe("invalidCursor");
  });

  test("a page of large turns stops within what one response can send inline, and paging still reaches every turn", async () => {
    await using h = await createHarness();
    // 60 turns of ~30 KB: each is sent inline (under 64 KiB), 50 of them would need 1.5 MB.
    const threadId = await writeTranscript(h, 60, ` ${"x".repeat(30_000)}`);
    const seen: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    do {
      const page = await h.manager.readThread({ threadId, ...(cursor ? { cursor } : {}) }, h.desktop());
      expect(bytes(page)).toBeLessThanOrEqual(SENDABLE_BYTES);
      expect(page.turns.length).toBeGreaterThan(0);
      seen.unshift(...page.turns.map((t) => firstText(t) ?? ""));
      cursor = page.nextCursor;
      sizes.push(page.turns.length);
    } while (cursor !== undefined);
    expect(sizes[0]).toBeLessThan(50);
    expect(sizes.length).toBe(2);
    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => `question ${i}`));
    // Resume sizes its page the same way, next to its snapshots.
    const resumed = await h.manager.resumeThread({ threadId }, h.desktop());
    expect(resumed.turns.length).toBeLessThan(50);
    expect(bytes(resumed)).toBeLessThanOrEqual(SENDABLE_BYTES);
  });

  test("turns over 64 KiB count as the payload reference the server sends for them, so a page still holds 50", async () => {
    await using h = await createHarness();
    const threadId = await writeTranscript(h, 55, ` ${"y".repeat(70_000)}`);
    const page = await h.manager.readThread({ threadId }, h.desktop());
    expect(page.turns.length).toBe(50);
    expect(page.nextCursor).toBeString();
  });
});
