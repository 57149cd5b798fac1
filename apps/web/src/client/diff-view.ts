/** A unified diff drawn line by line: added, removed, hunk headers and context each styled. */
import { h } from "./dom.ts";

function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return "diff-file";
  if (line.startsWith("@@")) return "diff-hunk";
  if (line.startsWith("+")) return "diff-add";
  if (line.startsWith("-")) return "diff-del";
  return "diff-context";
}

/** The diff as a `<pre>` of one span per line. */
export function diffView(diff: string): HTMLElement {
  const lines = diff.endsWith("\n") ? diff.slice(0, -1).split("\n") : diff.split("\n");
  return h(
    "pre",
    { class: "diff" },
    ...lines.map((line) => h("span", { class: lineClass(line) }, `${line}\n`)),
  );
}
