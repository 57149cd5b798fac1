/**
 * The session tree (`thread/tree/read`) drawn as a tree (rows laid out by `treeRows`):
 * the current branch marked, the leaf bold. Clicking a row moves the
 * thread's leaf there.
 */
import type { ThreadTreeReadResult, TreeEntry } from "@knightcode/app-server-protocol";
import { h } from "./dom.ts";
import { treeRows } from "./tree-rows.ts";

/** The tree as a list; `onPick` gets the entry the reader chose. */
export function sessionTreeView(tree: ThreadTreeReadResult, onPick: (entry: TreeEntry) => void): HTMLElement {
  const current = new Set(tree.currentBranch);
  // the leaf itself may be a marker entry the tree does not list: the branch's last message stands for it
  const leaf = tree.currentBranch.at(-1);
  const rows = treeRows(tree.entries).map(({ entry, depth, branchStart }) => {
    const row = h(
      "li",
      {
        class: [
          "tree-row",
          `kind-${entry.kind}`,
          current.has(entry.id) ? "current" : "",
          entry.id === leaf ? "leaf" : "",
        ].join(" "),
        "data-entry-id": entry.id,
      },
      h(
        "button",
        { class: "tree-pick", title: entry.timestamp, onclick: () => onPick(entry) },
        `${branchStart ? "├ " : ""}${entry.kind}: ${entry.preview || "(empty)"}`,
      ),
    );
    // through the CSSOM: the page's CSP allows no inline style attributes
    row.style.setProperty("--depth", String(depth));
    return row;
  });
  return h("ul", { class: "session-tree" }, ...rows);
}
