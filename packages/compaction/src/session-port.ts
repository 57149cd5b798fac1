/**
 * The compaction session port over the store's `SessionFile`, including retain-none
 * compactions whose `firstKeptEntryId` is their own ID.
 */
import type { CompactionEntry, SessionFile } from "@knightcode/session-store";
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
      // Retain-none: the entry names itself, so its ID is reserved before the write.
      const id = file.reserveEntryId();
      return file.append({ type: "compaction", firstKeptEntryId: id, ...rest }, { id }) as CompactionEntry;
    },
  };
}
