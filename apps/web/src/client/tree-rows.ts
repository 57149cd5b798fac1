/**
 * The layout of the session tree, apart from drawing: one row per entry in depth-first
 * order, indented one step where a branch splits, so a straight conversation stays flat
 * (as the terminal's `/tree` draws it).
 */
import type { TreeEntry } from "@knightcode/app-server-protocol";

/** A row of the drawn tree. */
export interface TreeRow {
  entry: TreeEntry;
  depth: number;
  /** Whether this entry starts one of several branches of its parent. */
  branchStart: boolean;
}

/** Lays the entries out as rows in depth-first order (pure; parents come before children in the input). */
export function treeRows(entries: readonly TreeEntry[]): TreeRow[] {
  const children = new Map<string | null, TreeEntry[]>();
  const ids = new Set(entries.map((entry) => entry.id));
  for (const entry of entries) {
    // drawn from the nearest listed ancestor (the server's `treeParentId`), never from a marker
    const parent = entry.treeParentId !== null && ids.has(entry.treeParentId) ? entry.treeParentId : null;
    const list = children.get(parent) ?? [];
    list.push(entry);
    children.set(parent, list);
  }
  const rows: TreeRow[] = [];
  const stack: { entry: TreeEntry; depth: number; branchStart: boolean }[] = [];
  const pushChildren = (parent: string | null, depth: number) => {
    const list = children.get(parent) ?? [];
    const split = list.length > 1;
    for (const entry of [...list].reverse())
      stack.push({ entry, depth: split ? depth + 1 : depth, branchStart: split });
  };
  pushChildren(null, -1);
  while (stack.length > 0) {
    const row = stack.pop()!;
    rows.push({ ...row, depth: Math.max(0, row.depth) });
    pushChildren(row.entry.id, Math.max(0, row.depth));
  }
  return rows;
}
