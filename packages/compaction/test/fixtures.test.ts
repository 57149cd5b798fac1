/**
 * Cross-check against pi on real session files: with default settings the plan must
 * match pi's numbers exactly. KnightCode's rules differ from pi's in places (split
 * detection after pulled-in metadata, tool-result-only tails, images in user messages,
 * usage before the latest compaction); none of those situations occur at these cuts,
 * so the numbers are the same.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSessionBytes } from "@knightcode/session-store";
import { prepareCompaction } from "../src/prepare.ts";
import { DEFAULT_COMPACTION_SETTINGS } from "../src/settings.ts";

/** Session files written by pi, copied into the repository so a clone tests on its own. */
const FIXTURES = join(import.meta.dir, "../../../test/fixtures/pi-sessions");

function plan(name: string) {
  const parsed = parseSessionBytes(readFileSync(join(FIXTURES, name)));
  expect(parsed.sourceVersion).toBe(1);
  const path = parsed.entries;
  const preparation = prepareCompaction(path, DEFAULT_COMPACTION_SETTINGS);
  if (!preparation) throw new Error("no plan");
  return { path, preparation };
}

describe("pi fixtures with default settings", () => {
  test("large-session.jsonl matches pi's plan", () => {
    const { path, preparation: p } = plan("large-session.jsonl");
    expect(path.length).toBe(1018);
    expect(p.firstKeptIndex).toBe(837);
    expect(p.firstKeptEntryId).toBe(path[837]?.id);
    expect(p.isSplitTurn).toBe(true);
    expect(p.turnStartIndex).toBe(834);
    expect(p.messagesToSummarize.length).toBe(730);
    expect(p.turnPrefixMessages.length).toBe(3);
    expect(p.tokensBefore).toBe(177_657);
    expect(p.previousSummary).toBeUndefined();
  });

  test("before-compaction.jsonl matches pi's plan, summarizing from the previous kept boundary", () => {
    const { path, preparation: p } = plan("before-compaction.jsonl");
    expect(path.length).toBe(1002);
    expect(p.firstKeptIndex).toBe(946);
    expect(p.isSplitTurn).toBe(true);
    expect(p.turnStartIndex).toBe(939);
    expect(p.messagesToSummarize.length).toBe(383);
    expect(p.turnPrefixMessages.length).toBe(7);
    expect(p.tokensBefore).toBe(180_820);
    // The second of the file's two compactions kept entries from its v1 index 551.
    expect(p.summarizeFromIndex).toBe(550);
    expect(p.previousSummary?.startsWith("# Context Checkpoint")).toBe(true);
  });
});
