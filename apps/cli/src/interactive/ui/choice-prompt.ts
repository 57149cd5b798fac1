/**
 * An inline question: a few lines of context, then a list of choices (↑/↓, Enter, Esc),
 * optionally followed by a one-line text answer. Wraps pi-tui's SelectList and Input.
 */
import { type Focusable, Input, SelectList } from "@mariozechner/pi-tui";
import type { Block } from "./block.ts";
import { isKey } from "./keys.ts";
import { style } from "./style.ts";
import { wrapLines } from "./text.ts";

/** One choice; `askText` turns the choice into a text question before it resolves. */
export interface Choice {
  value: string;
  label: string;
  description?: string;
  askText?: string;
}

/** Detail lines shown before the rest is folded behind Ctrl+O. */
export const COLLAPSED_DETAIL_LINES = 16;

/** What the user answered: a choice (with text when it asked for some), or Esc. */
export type ChoiceAnswer = { value: string; text?: string } | { cancelled: true };

const listTheme = {
  selectedPrefix: (t: string) => style.accent(t),
  selectedText: (t: string) => style.accent(t),
  description: (t: string) => style.muted(t),
  scrollInfo: (t: string) => style.muted(t),
  noMatch: (t: string) => style.muted(t),
};

/** The prompt block; resolve `answer` once. */
export class ChoicePrompt implements Block, Focusable {
  focused = false;
  private list: SelectList;
  private input: Input | undefined;
  private textQuestion = "";
  private detailExpanded = false;
  private query = "";
  private settle: (answer: ChoiceAnswer) => void = () => {};
  /** Resolves with the user's answer. */
  readonly answer: Promise<ChoiceAnswer>;

  constructor(
    private readonly title: string,
    private readonly choices: Choice[],
    private readonly onChange: () => void,
    /** Typing filters the choices (pickers over sessions and models). */
    private readonly searchable = false,
    /** Lines under the title (an approval's diff), collapsed past a few unless Ctrl+O expands them. */
    private readonly detail: readonly string[] = [],
    /** The value the list opens on (the one in effect now). */
    selected?: string,
  ) {
    this.answer = new Promise((resolve) => {
      this.settle = resolve;
    });
    this.list = this.buildList(choices);
    const at = choices.findIndex((c) => c.value === selected);
    if (at > 0) this.list.setSelectedIndex(at);
  }

  private buildList(shown: Choice[]): SelectList {
    const list = new SelectList(
      shown.map((c) => ({
        value: c.value,
        label: c.label,
        ...(c.description ? { description: c.description } : {}),
      })),
      Math.max(1, Math.min(shown.length, 10)),
      listTheme,
    );
    list.onSelect = (item) => {
      const choice = shown.find((c) => c.value === item.value);
      if (choice?.askText === undefined) {
        this.settle({ value: item.value });
        return;
      }
      this.openText(item.value, choice.askText);
    };
    list.onCancel = () => this.settle({ cancelled: true });
    return list;
  }

  /**
   * Shows the text question of choice `value` at once (an extension's `input` dialog has
   * nothing to choose). Esc answers an empty text, or cancels when `escapeCancels`.
   */
  openText(value: string, question: string, escapeCancels = false): void {
    this.textQuestion = question;
    this.input = new Input();
    this.input.focused = true;
    this.input.onSubmit = (text) => this.settle({ value, text });
    this.input.onEscape = () => this.settle(escapeCancels ? { cancelled: true } : { value, text: "" });
    this.onChange();
  }

  private setQuery(query: string): void {
    this.query = query;
    const words = query
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== "");
    const matches = (c: Choice) => {
      const hay = `${c.label} ${c.description ?? ""} ${c.value}`.toLowerCase();
      return words.every((w) => hay.includes(w));
    };
    this.list = this.buildList(this.choices.filter(matches));
  }

  /** Withdraws the prompt (the server cancelled the request). */
  cancel(): void {
    this.settle({ cancelled: true });
  }

  render(width: number): string[] {
    const lines = [...wrapLines(this.title, width), ...this.renderDetail(width)];
    if (this.searchable) lines.push(style.muted(`Search: ${this.query}`));
    if (this.input === undefined) return [...lines, ...this.list.render(width)];
    return [...lines, ...wrapLines(style.accent(this.textQuestion), width), ...this.input.render(width)];
  }

  private renderDetail(width: number): string[] {
    const collapsed = !this.detailExpanded && this.detail.length > COLLAPSED_DETAIL_LINES;
    const shown = collapsed ? this.detail.slice(0, COLLAPSED_DETAIL_LINES) : this.detail;
    // wrapped, not cut: what is approved must be seen whole
    const lines = shown.flatMap((line) => wrapLines(line, width - 2).map((l) => `  ${l}`));
    if (collapsed) {
      const more = this.detail.length - shown.length;
      lines.push(style.muted(`  … ${more} more line${more === 1 ? "" : "s"} (Ctrl+O to show all)`));
    }
    return lines;
  }

  handleInput(data: string): void {
    if (this.input === undefined && this.detail.length > COLLAPSED_DETAIL_LINES && isKey(data, "ctrl+o")) {
      this.detailExpanded = !this.detailExpanded;
      this.onChange();
      return;
    }
    if (this.input !== undefined) this.input.handleInput(data);
    else if (this.searchable && isPrintable(data)) this.setQuery(this.query + data);
    else if (this.searchable && data === "\u007f") this.setQuery(this.query.slice(0, -1));
    else this.list.handleInput(data);
    this.onChange();
  }
}

/** Plain typed text (no control or escape sequences). */
function isPrintable(data: string): boolean {
  return data.length > 0 && !data.startsWith("\u001b") && [...data].every((c) => c >= " " && c !== "\u007f");
}
