/**
 * History pages as the protocol returns them: the session store cuts the page and
 * anchors its cursor; each stored turn is projected, and the running turn is replaced
 * by its live snapshot (streaming items included). Pages stop at the byte budget the
 * caller passes, measured as the app server will send each turn. Any branch can be read,
 * not only the current one.
 */
import { historyPage, type SessionFile, type TurnGroup } from "@knightcode/session-store";
import type { Turn } from "../shapes.ts";
import type { LiveTurn } from "../turns/live-turn.ts";
import { projectTurnGroup } from "./history-projection.ts";
import { sentTurnBytes } from "./response-budget.ts";

/** One page of projected turns and the cursor of the older page. */
export interface HistoryTurns {
  turns: Turn[];
  nextCursor?: string;
}

/**
 * Reads one history page of a session; throws the store's `invalidCursor` error for a
 * bad cursor. `maxBytes` bounds the page's turns as sent (at least one turn is returned).
 */
export function historyTurns(
  session: SessionFile,
  live: LiveTurn | undefined,
  cursor: string | undefined,
  maxBytes?: number,
  /** The entry the branch ends at; the session's leaf by default. */
  leafId: string | null = session.leafId,
): HistoryTurns {
  const projected = new Map<string, Turn>();
  const turnOf = (group: TurnGroup): Turn => {
    let turn = projected.get(group.id);
    if (!turn) {
      turn = live && group.id === live.id ? live.snapshot() : projectTurnGroup(group).turn;
      projected.set(group.id, turn);
    }
    return turn;
  };
  const page = historyPage({
    threadId: session.id,
    path: session.branch(leafId),
    ...(cursor ? { cursor } : {}),
    ...(maxBytes !== undefined
      ? { maxBytes, measure: (group: TurnGroup) => sentTurnBytes(turnOf(group)) }
      : {}),
  });
  const turns = page.turns.map(turnOf);
  return page.nextCursor !== undefined ? { turns, nextCursor: page.nextCursor } : { turns };
}
