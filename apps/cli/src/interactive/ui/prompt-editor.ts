/**
 * The message editor: pi-tui's Editor (multi-line, Shift+Enter or Ctrl+J for a new line,
 * history on ↑/↓, bracketed paste with large pastes collapsed into a marker that expands
 * on submit), with completion supplied by the app through {@link Completer}.
 */
import {
  type AutocompleteItem,
  type AutocompleteProvider,
  type AutocompleteSuggestions,
  Editor,
  type Focusable,
  type TUI,
} from "@mariozechner/pi-tui";
import type { Block } from "./block.ts";
import { style } from "./style.ts";

/** One completion candidate: `value` replaces the typed prefix. */
export interface Completion {
  value: string;
  label: string;
  description?: string;
}

/** Supplies completions for the text before the cursor on the current line. */
export interface Completer {
  /** Candidates and the prefix they replace, or undefined when nothing applies. */
  complete(
    textBeforeCursor: string,
    atMessageStart: boolean,
    signal: AbortSignal,
  ): Promise<{ items: Completion[]; prefix: string } | undefined>;
}

const selectListTheme = {
  selectedPrefix: (t: string) => style.accent(t),
  selectedText: (t: string) => style.accent(t),
  description: (t: string) => style.muted(t),
  scrollInfo: (t: string) => style.muted(t),
  noMatch: (t: string) => style.muted(t),
};

/** Adapts a {@link Completer} to the library's provider contract. */
function providerFor(completer: Completer): AutocompleteProvider {
  return {
    async getSuggestions(lines, cursorLine, cursorCol, { signal }): Promise<AutocompleteSuggestions | null> {
      const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
      const result = await completer.complete(before, cursorLine === 0, signal);
      if (result === undefined || result.items.length === 0) return null;
      return { items: result.items as AutocompleteItem[], prefix: result.prefix };
    },
    applyCompletion(lines, cursorLine, cursorCol, item, prefix) {
      const line = lines[cursorLine] ?? "";
      const start = cursorCol - prefix.length;
      const next = `${line.slice(0, start)}${item.value}${line.slice(cursorCol)}`;
      const updated = [...lines];
      updated[cursorLine] = next;
      return { lines: updated, cursorLine, cursorCol: start + item.value.length };
    },
    // `@` starts a file completion without Tab
    shouldTriggerFileCompletion: () => true,
  };
}

/** The editor block. */
export class PromptEditor implements Block, Focusable {
  private readonly inner: Editor;
  onSubmit: (text: string) => void = () => {};

  /** Made by {@link Screen.createEditor}, which owns the library's TUI. */
  /** The border's style; applied here to whole lines (see `render`). */
  private border: (text: string) => string = style.muted;

  constructor(tui: TUI) {
    this.inner = new Editor(tui, {
      borderColor: (text) => this.borderPiece(text),
      selectList: selectListTheme,
    });
    this.inner.onSubmit = (text) => this.onSubmit(text);
  }

  get focused(): boolean {
    return this.inner.focused;
  }
  set focused(value: boolean) {
    this.inner.focused = value;
  }

  setCompleter(completer: Completer): void {
    this.inner.setAutocompleteProvider(providerFor(completer));
  }

  /** The text with paste markers expanded, as it would be submitted. */
  getText(): string {
    return this.inner.getExpandedText();
  }

  isEmpty(): boolean {
    return this.inner.getText() === "";
  }

  setText(text: string): void {
    this.inner.setText(text);
  }

  addToHistory(text: string): void {
    this.inner.addToHistory(text);
  }

  /** True while the completion list is open (Esc and Enter belong to it then). */
  isCompleting(): boolean {
    return this.inner.isShowingAutocomplete();
  }

  setBorder(color: "normal" | "busy"): void {
    this.border = color === "busy" ? style.accent : style.muted;
  }

  /**
   * The library styles the plain border one "─" at a time and repeats it, which in 24-bit
   * colour is some twenty bytes per column; a lone "─" is left plain and the whole border
   * line styled once in `render`. Scroll indicators come whole and are styled here.
   */
  private borderPiece(text: string): string {
    return text === "─" ? text : this.border(text);
  }

  render(width: number): string[] {
    const plainBorder = "─".repeat(width);
    // a line of exactly `width` dashes is a border: content lines keep a cursor column or padding
    return this.inner.render(width).map((line) => (line === plainBorder ? this.border(line) : line));
  }

  handleInput(data: string): void {
    this.inner.handleInput(data);
  }

  invalidate(): void {
    this.inner.invalidate();
  }
}
