/**
 * A tool call as a compact block: status, tool name and its key argument, then a few
 * lines of output (all of them when expanded), and for write/edit calls the diff the
 * server reported in `fileChanges`.
 */
import type { FileChange, ToolCallItem } from "@knightcode/app-server-protocol";
import type { Block } from "./ui/block.ts";
import { style } from "./ui/style.ts";
import { fitLine, wrapLines } from "./ui/text.ts";

const COLLAPSED_OUTPUT_LINES = 4;
const COLLAPSED_DIFF_LINES = 12;

/** The argument that says what a call does (a command, a path, a pattern). */
export function keyArgument(toolName: string, input: unknown): string {
  const args = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  const pick = (name: string) => (typeof args[name] === "string" ? (args[name] as string) : undefined);
  const value =
    toolName === "bash"
      ? pick("command")
      : (pick("path") ?? pick("pattern") ?? pick("question") ?? pick("command") ?? pick("query"));
  if (value !== undefined) return value.split("\n")[0] ?? "";
  const json = JSON.stringify(input ?? {});
  return json === "{}" ? "" : json;
}

/** A unified diff's hunk lines, without its file headers. */
export function diffBodyLines(diff: string): string[] {
  return diff
    .split("\n")
    .filter(
      (l) =>
        l !== "" &&
        !l.startsWith("---") &&
        !l.startsWith("+++") &&
        !l.startsWith("Index:") &&
        !/^=+$/.test(l),
    );
}

/** Diff lines colored by their sign. */
export function diffLines(change: FileChange): string[] {
  const head = `${change.kind === "add" ? "+ new file" : change.kind === "delete" ? "- deleted" : "~ modified"} ${change.path}`;
  const body = diffBodyLines(change.diff ?? "").map((l) =>
    l.startsWith("+")
      ? style.added(l)
      : l.startsWith("-")
        ? style.removed(l)
        : l.startsWith("@@")
          ? style.accent(l)
          : style.muted(l),
  );
  return [style.bold(head), ...body];
}

const STATUS_ICON: Record<ToolCallItem["status"], (t: string) => string> = {
  inProgress: (t) => style.accent(t),
  completed: (t) => style.success(t),
  failed: (t) => style.error(t),
  declined: (t) => style.warning(t),
};
const ICON: Record<ToolCallItem["status"], string> = {
  inProgress: "●",
  completed: "✓",
  failed: "✗",
  declined: "⊘",
};

/** A tool call's block; `update` replaces the item as newer versions arrive. */
export class ToolCallBlock implements Block {
  constructor(
    private item: ToolCallItem,
    private readonly expanded: () => boolean,
  ) {}

  update(item: ToolCallItem): void {
    this.item = item;
  }

  render(width: number): string[] {
    const { item } = this;
    const icon = STATUS_ICON[item.status](ICON[item.status]);
    const arg =
      item.input === undefined && item.inputRef !== undefined
        ? "(large input)"
        : keyArgument(item.toolName, item.input);
    const status =
      item.status === "inProgress" ? "" : item.status === "completed" ? "" : ` ${style.muted(item.status)}`;
    const lines = [fitLine(`${icon} ${style.bold(item.toolName)} ${style.muted(arg)}${status}`, width)];
    const expanded = this.expanded();
    const changes = item.fileChanges ?? [];
    if (changes.length > 0) {
      const diff = changes.flatMap(diffLines);
      const shown = expanded ? diff : diff.slice(0, COLLAPSED_DIFF_LINES);
      lines.push(...shown.map((l) => fitLine(`  ${l}`, width)));
      if (shown.length < diff.length)
        lines.push(style.muted(`  … ${diff.length - shown.length} more lines (Ctrl+O to expand)`));
    } else if (item.output !== undefined || item.outputRef !== undefined) {
      const output = item.output ?? `(large output: ${item.outputRef?.byteLength ?? 0} bytes)`;
      const trimmed = output.replace(/\s+$/, "");
      const all = trimmed === "" ? [] : trimmed.split("\n");
      const shown = expanded ? all : all.slice(0, COLLAPSED_OUTPUT_LINES);
      const body = expanded ? shown.flatMap((l) => wrapLines(l, width - 2)) : shown;
      lines.push(...body.map((l) => fitLine(`  ${style.muted(l)}`, width)));
      if (shown.length < all.length)
        lines.push(style.muted(`  … ${all.length - shown.length} more lines (Ctrl+O to expand)`));
    }
    return lines;
  }
}
