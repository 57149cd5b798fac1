import { describe, expect, test } from "bun:test";
import type { TreeEntry } from "@knightcode/app-server-protocol";
import { treeRows } from "../src/client/tree-rows.ts";

function entry(id: string, parentId: string | null, kind: TreeEntry["kind"] = "user"): TreeEntry {
  return { id, parentId, kind, preview: id, timestamp: "2026-01-01T00:00:00.000Z" };
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

  test("an entry whose parent is not listed hangs from the root", () => {
    const rows = treeRows([entry("a", "model-change"), entry("b", "a", "assistant")]);
    expect(rows.map((row) => row.entry.id)).toEqual(["a", "b"]);
  });
});
