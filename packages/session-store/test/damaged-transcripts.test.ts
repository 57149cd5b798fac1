import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { damagedTranscriptFileName, damagedTranscripts } from "@knightcode/testkit";
import {
  buildSessionContext,
  groupTurns,
  historyPage,
  InvalidSessionError,
  isDamaged,
  parseSessionBytes,
  SessionFile,
} from "../src/index.ts";

describe("damaged transcripts", () => {
  for (const fixture of damagedTranscripts()) {
    test(`${fixture.name}: the valid turns survive, the damage is counted, nothing on disk changes`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "kc-damaged-"));
      try {
        const path = join(dir, damagedTranscriptFileName(fixture.threadId));
        writeFileSync(path, fixture.bytes);
        if (fixture.notATranscript) {
          expect(() => parseSessionBytes(fixture.bytes)).toThrow();
          await expect(SessionFile.openReadOnly(path)).rejects.toBeInstanceOf(InvalidSessionError);
          return;
        }
        const session = await SessionFile.openReadOnly(path);
        expect(isDamaged(session.damage)).toBe(fixture.damaged!);
        const branch = session.branch();
        // Every entry is visited once: the walk ended and holds no repeats.
        expect(new Set(branch.map((e) => e.id)).size).toBe(branch.length);
        const page = historyPage({ threadId: session.id, path: branch });
        expect(page.turns.map((t) => t.id)).toEqual(fixture.turnIds);
        // The model context builds without a runtime error.
        expect(Array.isArray(buildSessionContext(branch, session.header).messages)).toBe(true);
        expect(readdirSync(dir)).toEqual([damagedTranscriptFileName(fixture.threadId)]);
        expect(readFileSync(path).equals(fixture.bytes)).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test("the first line of each kind of damage is reported, one-based with the header at 1", () => {
    const byName = new Map(damagedTranscripts().map((f) => [f.name.split(":")[0]!, f]));
    const cycle = parseSessionBytes(byName.get("cycle")!.bytes).damage;
    expect(cycle.relinked).toEqual({ count: 1, firstLine: 2 });
    expect(cycle.skipped.count).toBe(0);
    const invalid = parseSessionBytes(byName.get("invalid entry mid-chain")!.bytes).damage;
    expect(invalid.skipped).toEqual({ count: 1, firstLine: 6 });
    // Turn 2's start named the skipped entry and now hangs from that entry's parent.
    expect(invalid.relinked).toEqual({ count: 1, firstLine: 7 });
    const content = parseSessionBytes(byName.get("wrong-typed content")!.bytes).damage;
    expect(content.normalised).toEqual({ count: 2, firstLine: 3 });
    const torn = parseSessionBytes(byName.get("torn lines in the middle")!.bytes).damage;
    expect(torn.skipped).toEqual({ count: 2, firstLine: 4 });
  });

  test("content that is not a string or a list of parts is normalised, never a TypeError downstream", () => {
    const fixture = damagedTranscripts().find((f) => f.name.startsWith("wrong-typed content"))!;
    const parsed = parseSessionBytes(fixture.bytes);
    const user = parsed.entries.find((e) => e.id === "a0000011")!;
    expect(user.type === "message" && user.message.role === "user" && user.message.content).toEqual([]);
    const reply = parsed.entries.find((e) => e.id === "a0000022")!;
    expect(reply.type === "message" && reply.message.role === "assistant" && reply.message.content).toEqual([
      { type: "text", text: "not a list" },
    ]);
    expect(groupTurns(parsed.entries).turns).toHaveLength(2);
  });

  test("a skipped entry's children attach to its parent; a link to a missing entry attaches to the line before", () => {
    const fixture = damagedTranscripts().find((f) => f.name.startsWith("invalid entry mid-chain"))!;
    const parsed = parseSessionBytes(fixture.bytes);
    expect(parsed.entries.find((e) => e.id === "a0000020")!.parentId).toBe("a0000013");
    const torn = damagedTranscripts().find((f) => f.name.startsWith("torn lines"))!;
    expect(parseSessionBytes(torn.bytes).entries.find((e) => e.id === "a0000020")!.parentId).toBe("a0000011");
  });

  test("an owned open of a damaged file changes no byte and appends after the repaired leaf", async () => {
    const fixture = damagedTranscripts().find((f) => f.name.startsWith("cycle:"))!;
    const dir = mkdtempSync(join(tmpdir(), "kc-damaged-"));
    try {
      const path = join(dir, damagedTranscriptFileName(fixture.threadId));
      writeFileSync(path, fixture.bytes);
      const session = await SessionFile.openOwned(path);
      expect(readFileSync(path).equals(fixture.bytes)).toBe(true);
      session.append({ type: "session_info", name: "repaired" });
      session.close();
      const reread = await SessionFile.openReadOnly(path);
      expect(
        reread
          .branch()
          .map((e) => e.id)
          .slice(0, 2),
      ).toEqual(["a0000010", "a0000011"]);
      expect(reread.branch()).toHaveLength(9);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
