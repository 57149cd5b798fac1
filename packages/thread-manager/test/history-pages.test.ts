import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { AppServerError } from "@knightcode/app-server-protocol";
import { projectDirName, SessionFile, sessionsRoot } from "@knightcode/session-store";
import { createHarness, type Harness } from "./support/harness.ts";

/** Writes a transcript of `count` completed marker turns where the manager looks for it. */
async function writeTranscript(h: Harness, count: number): Promise<string> {
  const dir = join(sessionsRoot(h.dir.agentDir), projectDirName(h.dir.cwd));
  const session = await SessionFile.create({ dir, cwd: h.dir.cwd });
  session.append({ type: "model_change", provider: h.model.provider, modelId: h.model.id });
  for (let i = 0; i < count; i++) {
    const start = session.append({ type: "turn_start", startedAt: 1000 * i });
    session.append({
      type: "message",
      message: { role: "user", content: `question ${i}`, timestamp: 1000 * i + 1 },
    });
    session.append({ type: "turn_end", turnId: start.id, outcome: "completed", completedAt: 1000 * i + 2 });
  }
  session.sync();
  session.close();
  return session.id;
}

const firstText = (turn: unknown) => {
  const items = (turn as { items?: { type: string; text?: string }[] }).items ?? [];
  return items.find((i) => i.type === "userMessage")?.text;
};

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
});
