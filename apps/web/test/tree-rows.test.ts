import { describe, expect, test } from "bun:test";
import type { TreeEntry } from "@knightcode/app-server-protocol";
import { treeRows } from "../src/client/tree-rows.ts";

function entry(id: string, treeParentId: string | null, kind: TreeEntry["kind"] = "user"): TreeEntry {
  return {
    id,
    parentId: treeParentId,
    treeParentId,
    kind,
    preview: id,
    timestamp: "2026-01-01T00:00:00.000Z",
  };
}

describe("treeRows", () => {
  test("a straight conversation stays at depth 0", () => {
    const rows = treeRows([entry("a", null), entry("b", "a", "assistant"), entry("c", "b")]);
    expect(rows.map((row) => [row.entry.id, row.depth, row.branchStart])).toEqual([
      ["a", 0, false],
      ["b", 0, false],
      ["c", 0, false],
    ]);
  });

  test("a split indents each branch one step, depth-first, in file order", () => {
    // a - b - c
    //      \- d - e
    const rows = treeRows([
      entry("a", null),
      entry("b", "a", "assistant"),
      entry("c", "b"),
      entry("d", "b"),
      entry("e", "d", "assistant"),
    ]);
    expect(rows.map((row) => [row.entry.id, row.depth, row.branchStart])).toEqual([
      ["a", 0, false],
      ["b", 0, false],
      ["c", 1, true],
      ["d", 1, true],
      ["e", 1, false],
    ]);
  });

  test("edges follow treeParentId, not the raw parent (a turn marker the tree leaves out)", () => {
    const rows = treeRows([
      entry("a", null),
      entry("b", "a", "assistant"),
      { ...entry("c", "b"), parentId: "turn-end-marker" },
    ]);
    expect(rows.map((row) => [row.entry.id, row.depth])).toEqual([
      ["a", 0],
      ["b", 0],
      ["c", 0],
    ]);
  });
});
