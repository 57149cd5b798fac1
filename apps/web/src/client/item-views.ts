/**
 * One element per item of a turn: user text, a reply in rendered markdown, reasoning
 * collapsed, a tool block with its input, output and diffs, a compaction summary.
 */
import type { FileChange, ThreadItem, ToolCallItem } from "@knightcode/app-server-protocol";
import { diffView } from "./diff-view.ts";
import { h } from "./dom.ts";
import { renderMarkdown } from "./markdown.ts";

function markdownBlock(text: string, extraClass = ""): HTMLElement {
  const block = h("div", { class: `markdown ${extraClass}`.trim() });
  block.innerHTML = renderMarkdown(text);
  return block;
}

/** A short line saying what a tool call acts on: the command, the path, the pattern. */
export function toolSubject(item: ToolCallItem): string {
  const input = item.input;
  if (typeof input !== "object" || input === null) return "";
  const fields = input as Record<string, unknown>;
  for (const key of ["command", "path", "file_path", "pattern", "query", "url"]) {
    const value = fields[key];
    if (typeof value === "string") return value.length > 120 ? `${value.slice(0, 117)}…` : value;
  }
  return "";
}

function fileChangeView(change: FileChange): HTMLElement {
  return h(
    "div",
    { class: "file-change" },
    h("div", { class: "file-change-path" }, `${change.kind} ${change.path}`),
    change.diff === undefined ? null : diffView(change.diff),
  );
}

function toolView(item: ToolCallItem): HTMLElement {
  const changes = item.fileChanges ?? [];
  const input = item.input === undefined ? "" : JSON.stringify(item.input, null, 2);
  return h(
    "details",
    { class: `item tool status-${item.status}`, "data-tool": item.toolName, open: changes.length > 0 },
    h(
      "summary",
      {},
      h("span", { class: "tool-name" }, item.toolName),
      " ",
      h("span", { class: "tool-subject" }, toolSubject(item)),
      " ",
      h("span", { class: "badge" }, item.status),
    ),
    input === "" ? null : h("pre", { class: "tool-input" }, input),
    item.output === undefined || item.output === "" ? null : h("pre", { class: "tool-output" }, item.output),
    ...changes.map(fileChangeView),
  );
}

/** A fresh element for `item`, marked with its ID. */
export function itemView(item: ThreadItem): HTMLElement {
  const element = drawItem(item);
  element.dataset.itemId = item.id;
  return element;
}

function drawItem(item: ThreadItem): HTMLElement {
  switch (item.type) {
    case "userMessage":
      return h("div", { class: "item user" }, h("div", { class: "user-text" }, item.text));
    case "agentMessage":
      return h("div", { class: "item agent" }, markdownBlock(item.text));
    case "reasoning":
      return h(
        "details",
        { class: "item reasoning" },
        h("summary", {}, "Reasoning"),
        markdownBlock(item.text),
      );
    case "toolCall":
      return toolView(item);
    case "compaction":
      return h(
        "details",
        { class: "item compaction" },
        h("summary", {}, `Compacted (${item.tokensBefore} tokens before)`),
        markdownBlock(item.summary),
      );
    case "extension":
      return h("div", { class: "item extension" }, `[${item.customType}] ${item.text ?? ""}`);
  }
}

/** Draws `item` again in place of `old`, keeping a collapsible block open or shut as the reader left it. */
export function redrawItem(old: HTMLElement, item: ThreadItem): HTMLElement {
  const fresh = itemView(item);
  if (
    old instanceof HTMLDetailsElement &&
    fresh instanceof HTMLDetailsElement &&
    old.dataset.toggled === "1"
  ) {
    fresh.open = old.open;
    fresh.dataset.toggled = "1";
  }
  old.replaceWith(fresh);
  return fresh;
}
