/**
 * An inline multi-line question (an extension's `ctx.ui.editor`): a title, then an editor
 * holding the prefilled text. Enter answers the text, Shift+Enter or Ctrl+J starts a new
 * line, Esc answers nothing.
 */
import type { Focusable } from "@mariozechner/pi-tui";
import type { Block } from "./block.ts";
import { isKey } from "./keys.ts";
import type { PromptEditor } from "./prompt-editor.ts";
import { style } from "./style.ts";
import { wrapLines } from "./text.ts";

/** What the user answered: the edited text, or Esc. */
export type EditorAnswer = { text: string } | { cancelled: true };

/** The prompt block; `answer` resolves once. */
export class EditorPrompt implements Block, Focusable {
  private settle: (answer: EditorAnswer) => void = () => {};
  /** Resolves with the user's answer. */
  readonly answer: Promise<EditorAnswer>;

  constructor(
    private readonly title: string,
    /** A fresh editor of the screen's (not the message editor), holding the prefill. */
    private readonly editor: PromptEditor,
    prefill: string,
    private readonly onChange: () => void,
  ) {
    this.answer = new Promise((resolve) => {
      this.settle = resolve;
    });
    editor.setText(prefill);
    editor.onSubmit = (text) => this.settle({ text });
  }

  get focused(): boolean {
    return this.editor.focused;
  }
  set focused(value: boolean) {
    this.editor.focused = value;
  }

  /** Withdraws the prompt (the server cancelled the request). */
  cancel(): void {
    this.settle({ cancelled: true });
  }

  render(width: number): string[] {
    const hint = style.muted("Enter sends, Shift+Enter adds a line, Esc skips");
    return [...wrapLines(this.title, width), ...wrapLines(hint, width), ...this.editor.render(width)];
  }

  handleInput(data: string): void {
    if (isKey(data, "escape") && !this.editor.isCompleting()) this.cancel();
    else this.editor.handleInput(data);
    this.onChange();
  }
}
