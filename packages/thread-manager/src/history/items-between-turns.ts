/**
 * Items of an entry written while no turn runs (an extension's `sendMessage` from a
 * command, an event handler or a timer). `thread/read` files such an entry under the turn
 * before it (the session store groups every entry up to the next turn's start into the
 * turn that precedes it), so live subscribers get it as that turn's item, with the ID and
 * contents a later read gives. Before the first turn there is no turn to carry it: such
 * entries are the branch's preamble, which `thread/read` does not show either.
 */

import type { ServerNotification } from "@knightcode/app-server-protocol";
import { groupTurns, type SessionEntry } from "@knightcode/session-store";
import type { ThreadItem } from "../shapes.ts";
import { projectTurnGroup } from "./history-projection.ts";

/** The turn an appended entry joined and the items it produced there; none in the preamble. */
export function itemsBetweenTurns(
  branch: readonly SessionEntry[],
  entryId: string,
): { turnId: string; items: ThreadItem[] } | undefined {
  const last = groupTurns(branch).turns.at(-1);
  if (!last?.entries.some((e) => e.id === entryId)) return undefined;
  const projected = projectTurnGroup(last);
  const ids = new Set(projected.itemsByEntry.get(entryId) ?? []);
  const items = (projected.turn.items ?? []).filter((i) => ids.has(i.id));
  return items.length > 0 ? { turnId: last.id, items } : undefined;
}

/** `item/started` and `item/completed` for each item an entry written between turns produced. */
export function notificationsBetweenTurns(
  threadId: string,
  branch: readonly SessionEntry[],
  entryId: string,
): ServerNotification[] {
  const shown = itemsBetweenTurns(branch, entryId);
  if (!shown) return [];
  return shown.items.flatMap((item): ServerNotification[] => [
    { method: "item/started", params: { threadId, turnId: shown.turnId, item } },
    { method: "item/completed", params: { threadId, turnId: shown.turnId, item } },
  ]);
}
