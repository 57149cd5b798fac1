/** Plain and markdown text blocks, wrapping pi-tui's Text and Markdown. */
import {
  Markdown,
  type MarkdownTheme,
  Text,
  truncateToWidth,
  visibleWidth,
  wrapTextWithAnsi,
} from "@mariozechner/pi-tui";
import type { Block } from "./block.ts";
import { highlightCode } from "./highlight.ts";
import { style } from "./style.ts";

/** Word-wrapped text with optional left padding. */
export class TextBlock implements Block {
  private readonly inner: Text;
  constructor(text = "", paddingX = 0) {
    this.inner = new Text(text, paddingX, 0);
  }
  setText(text: string): void {
    this.inner.setText(text);
  }
  render(width: number): string[] {
    // pi-tui's Text renders an empty text as no lines; keep that
    return this.inner.render(width);
  }
  invalidate(): void {
    this.inner.invalidate();
  }
}

const markdownTheme: MarkdownTheme = {
  heading: (t) => style.bold(style.accent(t)),
  link: (t) => style.underline(style.accent(t)),
  linkUrl: (t) => style.muted(t),
  code: (t) => style.accent(t),
  codeBlock: (t) => t,
  codeBlockBorder: (t) => style.muted(t),
  quote: (t) => style.italic(t),
  quoteBorder: (t) => style.muted(t),
  hr: (t) => style.muted(t),
  listBullet: (t) => style.accent(t),
  bold: (t) => style.bold(t),
  italic: (t) => style.italic(t),
  strikethrough: (t) => style.strikethrough(t),
  underline: (t) => style.underline(t),
  highlightCode,
};

/** Markdown, re-rendered as its text grows (the library caches per text and width). */
export class MarkdownBlock implements Block {
  private readonly inner: Markdown;
  constructor(text = "", options: { dim?: boolean } = {}) {
    this.inner = new Markdown(text, 0, 0, markdownTheme, options.dim ? { color: style.dim } : undefined);
  }
  setText(text: string): void {
    this.inner.setText(text);
  }
  render(width: number): string[] {
    return this.inner.render(width);
  }
  invalidate(): void {
    this.inner.invalidate();
  }
}

/** Cuts a styled line to `width` columns. */
export function fitLine(line: string, width: number): string {
  return visibleWidth(line) <= width ? line : truncateToWidth(line, width);
}

/** Wraps styled text to `width` columns, keeping styles per line. */
export function wrapLines(text: string, width: number): string[] {
  return text.split("\n").flatMap((line) => wrapTextWithAnsi(line, Math.max(1, width)));
}
