/**
 * `thread/tree/navigate` asks the thread's extensions (`session_before_tree`) with pi's
 * `preparation`, and uses the summary a handler gives, with or without a thread model:
 * a thread whose model is gone (resumed after its provider left) still lets an extension
 * write the branch summary; only a summary the user asked for and no handler gave fails.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { AppServerError } from "@knightcode/app-server-protocol";
import { textReply } from "@knightcode/testkit";
import { type ExtensionHostFactory, IDLE_UNLOAD_MS } from "../src/index.ts";
import { createHarness, type Harness } from "./support/harness.ts";

interface Asked {
  targetId: string;
  userWantsSummary: boolean;
  /** Entries of the branch being left (the second turn's markers and messages). */
  entries: number;
}

/** An extension host whose `session_before_tree` records what it is asked and answers `summary` (none: no answer). */
function treeHook(summary: string | undefined): { factory: ExtensionHostFactory; asked: Asked[] } {
  const asked: Asked[] = [];
  const factory: ExtensionHostFactory = async () => ({
    hooks: {
      sessionBeforeTree: async ({ preparation }) => {
        asked.push({
          targetId: preparation.targetId,
          userWantsSummary: preparation.userWantsSummary,
          entries: preparation.entriesToSummarize.length,
        });
        return summary === undefined ? undefined : { summary: { summary } };
      },
    },
    commands: [],
    warnings: [],
    dispose: async () => {},
  });
  return { factory, asked };
}

async function turn(h: Harness, threadId: string, text: string) {
  const mark = h.events.length;
  await h.manager.startTurn({ threadId, text }, h.desktop());
  await h.waitFor((n) => n.method === "thread/turn/completed", mark);
}

/** A thread with two answered turns; resolves with its ID, path and the first answer's entry. */
async function twoTurns(h: Harness): Promise<{ id: string; path: string; firstAnswer: string }> {
  const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
  h.server.enqueue(textReply("answer one"), textReply("answer two"));
  await turn(h, thread.id, "question one");
  await turn(h, thread.id, "question two");
  const tree = await h.manager.readTree({ threadId: thread.id }, h.desktop());
  const firstAnswer = tree.entries.find((e) => e.preview === "answer one")!.id;
  return { id: thread.id, path: thread.path!, firstAnswer };
}

/** Unloads the thread and loads it again, now that its model is gone from the source. */
async function resumeWithoutModel(h: Harness, threadId: string): Promise<void> {
  await h.manager.unsubscribe({ threadId }, h.desktop());
  h.clock.advance(IDLE_UNLOAD_MS);
  expect(h.manager.diagnostics().loadedThreads).toBe(0);
  h.models.length = 0;
  await h.manager.resumeThread({ threadId }, h.desktop());
}

function summaries(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.type === "branch_summary");
}

describe("session_before_tree", () => {
  test("a thread with a model: the handler gets pi's preparation and its summary is written", async () => {
    const { factory, asked } = treeHook("BRANCH BY EXTENSION");
    await using h = await createHarness({ extensions: factory });
    const thread = await twoTurns(h);
    const moved = await h.manager.navigateTree(
      { threadId: thread.id, entryId: thread.firstAnswer },
      h.desktop(),
    );
    expect(asked).toEqual([{ targetId: thread.firstAnswer, userWantsSummary: false, entries: 5 }]);
    expect(moved.summaryEntryId).toBeDefined();
    expect(summaries(thread.path)).toEqual([
      expect.objectContaining({ summary: "BRANCH BY EXTENSION", fromHook: true }),
    ]);
  });

  test("a thread whose model is gone still asks the handler and writes its summary, without a model request", async () => {
    const { factory, asked } = treeHook("BRANCH WITHOUT A MODEL");
    await using h = await createHarness({ extensions: factory });
    const thread = await twoTurns(h);
    await resumeWithoutModel(h, thread.id);
    const requests = h.server.requests.length;
    const moved = await h.manager.navigateTree(
      { threadId: thread.id, entryId: thread.firstAnswer, summarize: true },
      h.desktop(),
    );
    expect(asked).toEqual([{ targetId: thread.firstAnswer, userWantsSummary: true, entries: 5 }]);
    expect(moved.leafId).toBe(moved.summaryEntryId!);
    expect(summaries(thread.path)).toEqual([
      expect.objectContaining({ summary: "BRANCH WITHOUT A MODEL", fromHook: true }),
    ]);
    expect(h.server.requests.length).toBe(requests);
  });

  test("without a model and without a handler's summary: a plain move goes ahead, an asked-for summary fails and moves nothing", async () => {
    const { factory, asked } = treeHook(undefined);
    await using h = await createHarness({ extensions: factory });
    const thread = await twoTurns(h);
    await resumeWithoutModel(h, thread.id);
    const before = (await h.manager.readTree({ threadId: thread.id }, h.desktop())).leafId;
    const failed = await h.manager
      .navigateTree({ threadId: thread.id, entryId: thread.firstAnswer, summarize: true }, h.desktop())
      .then(
        () => undefined,
        (error: unknown) => error as AppServerError,
      );
    expect(failed).toBeInstanceOf(AppServerError);
    expect(failed?.code).toBe("internal");
    expect(failed?.message).toContain("No model is selected to write the summary");
    expect((await h.manager.readTree({ threadId: thread.id }, h.desktop())).leafId).toBe(before);
    const plain = await h.manager.navigateTree(
      { threadId: thread.id, entryId: thread.firstAnswer },
      h.desktop(),
    );
    expect(plain.leafId).toBe(thread.firstAnswer);
    expect(asked).toHaveLength(2);
    expect(summaries(thread.path)).toEqual([]);
  });
});
