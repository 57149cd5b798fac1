/**
 * History pages as the protocol returns them: the session store cuts the page and
 * anchors its cursor; each stored turn is projected, and the running turn is replaced
 * by its live snapshot (streaming items included).
 */
import { historyPage, type SessionFile } from "@knightcode/session-store";
import { projectTurnGroup } from "./history-projection.ts";
import type { LiveTurn } from "./live-turn.ts";
import type { Turn } from "./shapes.ts";

/** One page of projected turns and the cursor of the older page. */
export interface HistoryTurns {
  turns: Turn[];
  nextCursor?: string;
}

/** Reads one history page of a session; throws the store's `invalidCursor` error for a bad cursor. */
export function historyTurns(
  session: SessionFile,
  live: LiveTurn | undefined,
  cursor: string | undefined,
): HistoryTurns {
  const page = historyPage({ threadId: session.id, path: session.branch(), ...(cursor ? { cursor } : {}) });
  const turns = page.turns.map((group) =>
    live && group.id === live.id ? live.snapshot() : projectTurnGroup(group).turn,
  );
  return page.nextCursor !== undefined ? { turns, nextCursor: page.nextCursor } : { turns };
}
