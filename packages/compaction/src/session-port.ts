/**
 * The compaction session port over the store's `SessionFile`, including retain-none
 * compactions whose `firstKeptEntryId` is their own ID.
 */
import {
  type CompactionEntry,
  createEntryId,
  type NewEntry,
  type SessionFile,
} from "@knightcode/session-store";
import type { CompactionDraft, CompactionSessionPort } from "./run-compaction.ts";

/** Adapts an owned `SessionFile` (its current branch and leaf) for `runCompaction`. */
export function sessionFilePort(file: SessionFile): CompactionSessionPort {
  return {
    branch: () => file.branch(),
    appendCompaction(draft: CompactionDraft): CompactionEntry {
      const { firstKeptEntryId, ...rest } = draft;
      if (firstKeptEntryId !== null) {
        return file.append({ type: "compaction", firstKeptEntryId, ...rest }) as CompactionEntry;
      }
      // The ID must be known before writing so the entry can name itself; the store
      // takes an explicit `id` from the input.
      const id = createEntryId({ has: (candidate: string) => file.getEntry(candidate) !== undefined });
      const input = { type: "compaction", firstKeptEntryId: id, id, ...rest } as NewEntry;
      return file.append(input) as CompactionEntry;
    },
  };
}
