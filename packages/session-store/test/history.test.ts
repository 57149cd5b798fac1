import { describe, expect, test } from "bun:test";
import {
  groupTurns,
  historyPage,
  InvalidCursorError,
  MAX_HISTORY_PAGE_TURNS,
  SessionFile,
  type SessionStoreError,
} from "../src/index.ts";
import { tempDir } from "./helpers/temp-dir.ts";

function addTurn(
  file: SessionFile,
  text: string,
  outcome: "completed" | "failed" | "interrupted" | "none" = "completed",
) {
  const start = file.append({ type: "turn_start", startedAt: 1 });
  file.append({ type: "message", message: { role: "user", content: text, timestamp: 1 } });
  if (outcome !== "none") file.append({ type: "turn_end", turnId: start.id, outcome, completedAt: 2 });
  return start.id;
}

function fail(run: () => unknown): SessionStoreError {
  try {
    run();
  } catch (error) {
    return error as SessionStoreError;
  }
  throw new Error("expected an error");
}

describe("groupTurns", () => {
  test("turns come from the durable markers; entries after an end stay with that turn until the next start", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const pre = file.append({ type: "model_change", provider: "p", modelId: "m" });
    const t1 = addTurn(file, "one");
    const after = file.append({ type: "session_info", name: "n" });
    const t2 = addTurn(file, "two", "none");
    const { preamble, turns } = groupTurns(file.branch());
    expect(preamble.map((e) => e.id)).toEqual([pre.id]);
    expect(turns.map((t) => [t.id, t.index, t.end?.outcome, t.legacy])).toEqual([
      [t1, 0, "completed", false],
      [t2, 1, undefined, false],
    ]);
    expect(turns[0]!.entries.at(-1)!.id).toBe(after.id);
  });

  test("a steering user message inside a running marked turn stays in it; unmarked user messages open inferred turns", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const legacy = file.append({ type: "message", message: { role: "user", content: "pi", timestamp: 1 } });
    const t = addTurn(file, "marked", "none");
    file.append({ type: "message", message: { role: "user", content: "steer", timestamp: 1 } });
    const { turns } = groupTurns(file.branch());
    expect(turns.map((x) => [x.id, x.legacy, x.entries.length])).toEqual([
      [legacy.id, true, 1],
      [t, false, 3],
    ]);
  });
});

describe("historyPage", () => {
  test("pages hold at most 50 turns, newest page first, chronological inside, and cover every turn once", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) ids.push(addTurn(file, `t${i}`));
    const seen: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    do {
      const page = historyPage({ threadId: file.id, path: file.branch(), ...(cursor ? { cursor } : {}) });
      sizes.push(page.turns.length);
      expect(page.turns.map((t) => t.index)).toEqual(
        [...page.turns.map((t) => t.index)].sort((a, b) => a - b),
      );
      seen.unshift(...page.turns.map((t) => t.id));
      cursor = page.nextCursor;
      if (!cursor) expect(page.preamble).toEqual([]);
    } while (cursor);
    expect(sizes).toEqual([MAX_HISTORY_PAGE_TURNS, MAX_HISTORY_PAGE_TURNS, 20]);
    expect(seen).toEqual(ids);
    expect(historyPage({ threadId: file.id, path: file.branch(), limit: 500 }).turns).toHaveLength(50);
  });

  test("appends after the first page never shift the pages a cursor continues", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    for (let i = 0; i < 70; i++) addTurn(file, `t${i}`);
    const first = historyPage({ threadId: file.id, path: file.branch(), limit: 30 });
    const expected = historyPage({
      threadId: file.id,
      path: file.branch(),
      cursor: first.nextCursor!,
      limit: 30,
    });
    for (let i = 0; i < 15; i++) addTurn(file, `late${i}`);
    const later = historyPage({
      threadId: file.id,
      path: file.branch(),
      cursor: first.nextCursor!,
      limit: 30,
    });
    expect(later.turns.map((t) => t.id)).toEqual(expected.turns.map((t) => t.id));
    expect(later.nextCursor).toBe(expected.nextCursor!);
  });

  test("a diverged, foreign or malformed cursor is invalidCursor", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const root = file.append({ type: "custom", customType: "root" });
    for (let i = 0; i < 60; i++) addTurn(file, `a${i}`);
    const page = historyPage({ threadId: file.id, path: file.branch() });
    const cursor = page.nextCursor!;

    const foreign = fail(() => historyPage({ threadId: "someone-else", path: file.branch(), cursor }));
    expect(foreign).toBeInstanceOf(InvalidCursorError);
    expect(foreign.code).toBe("invalidCursor");
    for (const bad of ["", "h1.", "h1.!!!", "x", `h1.${Buffer.from('{"t":1}').toString("base64url")}`]) {
      expect(fail(() => historyPage({ threadId: file.id, path: file.branch(), cursor: bad })).code).toBe(
        "invalidCursor",
      );
    }
    // Move to another branch from the root: the cursor's prefix no longer exists there.
    file.setLeaf(root.id);
    for (let i = 0; i < 60; i++) addTurn(file, `b${i}`);
    expect(fail(() => historyPage({ threadId: file.id, path: file.branch(), cursor })).code).toBe(
      "invalidCursor",
    );
  });

  test("a byte budget shortens the page using the caller's measure, keeping at least one turn", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    for (let i = 0; i < 10; i++) addTurn(file, `t${i}`);
    const page = historyPage({ threadId: file.id, path: file.branch(), maxBytes: 250, measure: () => 100 });
    expect(page.turns).toHaveLength(2);
    const one = historyPage({ threadId: file.id, path: file.branch(), maxBytes: 1, measure: () => 100 });
    expect(one.turns).toHaveLength(1);
    expect(one.totalTurns).toBe(10);
    // Without a measure, a turn counts as the size of its stored lines.
    const grouped = groupTurns(file.branch());
    const lineBytes = grouped.turns[9]!.entries.reduce((n, e) => n + (file.entryBytes(e.id) ?? 0), 0);
    const byLines = historyPage({ threadId: file.id, path: file.branch(), grouped, maxBytes: lineBytes * 3 });
    expect(byLines.turns).toHaveLength(3);
  });
});
