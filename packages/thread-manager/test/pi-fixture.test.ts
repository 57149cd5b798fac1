import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SessionFile } from "@knightcode/session-store";
import { projectHistory } from "../src/index.ts";

/** Session files written by pi, copied into the repository so a clone tests on its own. */
const FIXTURES = join(import.meta.dir, "..", "..", "..", "test", "fixtures", "pi-sessions");

describe("pi transcripts", () => {
  for (const name of ["large-session.jsonl", "before-compaction.jsonl"]) {
    test(`${name} projects read-only into turns with durable IDs`, async () => {
      const path = join(FIXTURES, name);
      const before = readFileSync(path);
      const session = await SessionFile.openReadOnly(path);
      const branch = session.branch();
      const turns = projectHistory(branch);
      const users = branch.filter((e) => e.type === "message" && e.message.role === "user").length;
      // Without markers each user message opens a turn named after its entry.
      expect(turns.length).toBe(users);
      expect(turns.every((t) => branch.some((e) => e.id === t.id))).toBe(true);
      const items = turns.flatMap((t) => t.items ?? []);
      const calls = items.filter((i) => i.type === "toolCall");
      expect(calls.length).toBeGreaterThan(100);
      // Every answered call finished at its result; calls keep the provider's IDs.
      expect(calls.every((c) => c.type === "toolCall" && c.status !== "inProgress")).toBe(true);
      expect(calls.some((c) => c.type === "toolCall" && c.id.length > 8)).toBe(true);
      const edits = calls.filter(
        (c) => c.type === "toolCall" && c.toolName === "edit" && c.status === "completed",
      );
      expect(edits.length).toBeGreaterThan(0);
      expect(edits.every((c) => c.type === "toolCall" && (c.fileChanges?.length ?? 0) === 1)).toBe(true);
      // Turn times: numeric starts, completion after start.
      expect(
        turns.every((t) => typeof t.startedAt === "number" && (t.completedAt ?? t.startedAt) >= t.startedAt),
      ).toBe(true);
      // Indexes are top-level positions.
      expect(turns.every((t) => (t.items ?? []).every((item, i) => item.index === i))).toBe(true);
      // Projection is pure: the same entries project identically, and the file is untouched.
      expect(projectHistory(branch)).toEqual(turns);
      expect(readFileSync(path)).toEqual(before);
    });
  }
});
