/**
 * An inline question whose answer is a secret (an API key): what is typed or pasted is
 * kept by pi-tui's Input (paste, backspace, word deletion) but drawn only as a count of
 * characters, never the characters. Enter answers, Esc answers nothing.
 */
import { type Focusable, Input } from "@mariozechner/pi-tui";
import type { Block } from "./block.ts";
import { style } from "./style.ts";
import { wrapLines } from "./text.ts";

/** What the user answered: the secret, or Esc. */
export type SecretAnswer = { text: string } | { cancelled: true };

/** The prompt block; `answer` resolves once. */
export class SecretPrompt implements Block, Focusable {
  focused = true;
  private readonly input = new Input();
  private settle: (answer: SecretAnswer) => void = () => {};
  /** Resolves with the user's answer. */
  readonly answer: Promise<SecretAnswer>;

  constructor(
    private readonly title: string,
    private readonly onChange: () => void,
  ) {
    this.answer = new Promise((resolve) => {
      this.settle = resolve;
    });
    this.input.onSubmit = (text) => this.settle({ text });
    this.input.onEscape = () => this.settle({ cancelled: true });
  }

  /** Withdraws the prompt. */
  cancel(): void {
    this.settle({ cancelled: true });
  }

  render(width: number): string[] {
    const count = [...this.input.getValue()].length;
    const shown =
      count === 0
        ? style.muted("(hidden as you type; Enter saves, Esc cancels)")
        : "•".repeat(Math.min(count, 40));
    return [
      ...wrapLines(this.title, width),
      `> ${shown}${count > 40 ? style.muted(` ${count} characters`) : ""}`,
    ];
  }

  handleInput(data: string): void {
    this.input.handleInput(data);
    this.onChange();
  }
}
