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
import { FencedCodeDrawer, parseFencedCode } from "./code-block.ts";
import { highlightCode } from "./highlight.ts";
import { MarkdownSplitter } from "./markdown-split.ts";
import { renderSimpleListPart, renderSimpleParagraphPart } from "./simple-parts.ts";
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

export const markdownTheme: MarkdownTheme = {
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

/**
 * A single line of prose with no markdown syntax in it: it starts with a letter, holds only
 * letters, digits, spaces and punctuation marked reads as text, and no autolink (`www.`;
 * `:` and `@` are excluded). Markdown renders it as one plain paragraph.
 */
const PLAIN_PROSE = /^[A-Za-z][A-Za-z0-9 ,.;'?()-]*$/;
const isPlainProse = (text: string) => PLAIN_PROSE.test(text) && !/www\./i.test(text);
/** A finished part that is one line and the blank lines after it (the line may be plain prose). */
const PROSE_PART = /^([^\n]*)\n([ \n]*)$/;

/**
 * Markdown, re-rendered as its text grows (the library caches per text and width).
 *
 * A streamed reply is re-rendered every frame; marked's block lexer rescans the whole
 * growing text each time, which made a long reply's frames cost more the longer it got.
 * So the text is cut into finished blocks and a growing tail (see `MarkdownSplitter`):
 * each finished block is rendered once per width, only the tail every frame. Plain
 * prose (see `isPlainProse`), as the tail or as a finished part (a line and the blank lines
 * after it), skips the lexer: it renders exactly as the library renders a plain paragraph
 * (styled, wrapped, padded to the width). Tests check both agree with
 * rendering the whole text.
 *
 * A finished part that is a one-line paragraph with only bold and code spans, perhaps under
 * a heading, or a bullet list of such one-line items, is drawn by `simple-parts.ts`, also
 * without the lexer.
 *
 * A part that is one fenced code block (finished, or the tail while the block streams) is
 * drawn by `FencedCodeDrawer`, which draws what the library draws at a fraction of the
 * cost and, for a growing block, only the lines that changed.
 *
 * Lines come without the spaces the library pads them with to the full width (see
 * `withoutPadding`): pi-tui clears a line before drawing it, so those cells are blank
 * either way, and padding was about half the bytes a streamed reply wrote to the terminal
 * (and that pi-tui copies and compares every frame).
 */
export class MarkdownBlock implements Block {
  private readonly tail: Markdown;
  private readonly color: ((text: string) => string) | undefined;
  private readonly splitter = new MarkdownSplitter();
  private text: string;
  private tailText = "";
  /** Rendered finished blocks, in order, for one width. */
  private finished: { width: number; parts: { text: string; lines: string[] }[] } | undefined;
  private plain: { text: string; width: number; lines: string[] } | undefined;
  /** The tail's lines from the library (it returns the same array while cached), unpadded. */
  private tailLines: { from: string[]; lines: string[]; empty: boolean } | undefined;
  private readonly finishedCode = new FencedCodeDrawer(markdownTheme);
  private readonly tailCode = new FencedCodeDrawer(markdownTheme);
  constructor(text = "", options: { dim?: boolean } = {}) {
    this.color = options.dim ? style.dim : undefined;
    this.text = text;
    this.tail = this.markdown(text);
    this.tailText = text;
  }
  setText(text: string): void {
    this.text = text;
  }
  render(width: number): string[] {
    const cuts = this.splitter.cuts(this.text);
    const tail = this.renderTail(this.text.slice(cuts.at(-1) ?? 0), width);
    if (cuts.length === 0) return tail.lines;
    // a part that draws nothing still renders as one empty line; the whole does not
    const lines = this.renderFinished(cuts, width).concat(tail.empty ? [] : tail.lines);
    return lines.length > 0 ? lines : [""];
  }
  invalidate(): void {
    this.plain = undefined;
    this.finished = undefined;
    this.tailLines = undefined;
    this.tail.invalidate();
  }

  private markdown(text: string): Markdown {
    return new Markdown(text, 0, 0, markdownTheme, this.color ? { color: this.color } : undefined);
  }

  /** The lines of the blocks before the last cut, each block rendered once per width. */
  private renderFinished(cuts: readonly number[], width: number): string[] {
    if (this.finished?.width !== width) this.finished = { width, parts: [] };
    const parts = this.finished.parts;
    const lines: string[] = [];
    for (let i = 0; i < cuts.length; i++) {
      const text = this.text.slice(cuts[i - 1] ?? 0, cuts[i]);
      if (parts[i]?.text !== text) {
        parts.length = i;
        const code = parseFencedCode(text);
        const prose = PROSE_PART.exec(text);
        if (code !== undefined) {
          parts.push({ text, lines: this.finishedCode.draw(code, width) });
        } else if (prose !== null && isPlainProse(prose[1]!)) {
          // the paragraph, then the blank line the lexer's space token draws
          const paragraph = renderPlainParagraph(prose[1]!, width, this.color).map(withoutPadding);
          parts.push({ text, lines: prose[2] === "" ? paragraph : [...paragraph, ""] });
        } else {
          const simple =
            renderSimpleParagraphPart(text, width, markdownTheme, this.color) ??
            renderSimpleListPart(text, width, markdownTheme, this.color);
          const lines = simple ?? this.markdown(text).render(width);
          parts.push({ text, lines: drawsNothing(lines) ? [] : lines.map(withoutPadding) });
        }
      }
      for (const line of parts[i]!.lines) lines.push(line);
    }
    parts.length = cuts.length;
    return lines;
  }

  /** The tail's lines, and whether they are the library's stand-in for no content. */
  private renderTail(text: string, width: number): { lines: string[]; empty: boolean } {
    if (!isPlainProse(text)) {
      const code = parseFencedCode(text);
      if (code !== undefined) return { lines: this.tailCode.draw(code, width), empty: false };
      if (text !== this.tailText) {
        this.tailText = text;
        this.tail.setText(text);
      }
      const from = this.tail.render(width);
      if (this.tailLines?.from !== from) {
        const empty = drawsNothing(from);
        this.tailLines = { from, lines: empty ? from : from.map(withoutPadding), empty };
      }
      return this.tailLines;
    }
    if (this.plain?.text !== text || this.plain.width !== width) {
      this.plain = { text, width, lines: renderPlainParagraph(text, width, this.color).map(withoutPadding) };
    }
    return { lines: this.plain.lines, empty: false };
  }
}

/**
 * Whether a rendering is the library's stand-in for no content: drawn lines are padded
 * to the width (at least 1), so a lone empty line is the stand-in. Asked before padding
 * is taken off.
 */
const drawsNothing = (lines: string[]) => lines.length === 0 || (lines.length === 1 && lines[0] === "");

/**
 * A line without its trailing spaces. The library's lines end in plain spaces after any
 * styling (it closes styles and trims wrapped lines before padding), so dropping them
 * draws the same cells once the line has been cleared.
 */
export function withoutPadding(line: string): string {
  let end = line.length;
  while (end > 0 && line.charCodeAt(end - 1) === 32) end--;
  return end === line.length ? line : line.slice(0, end);
}

/** What pi-tui's Markdown draws for one plain paragraph: styled, wrapped, padded to `width`. */
export function renderPlainParagraph(
  text: string,
  width: number,
  color?: (text: string) => string,
): string[] {
  const contentWidth = Math.max(1, width);
  const lines = wrapTextWithAnsi(color ? color(text) : text, contentWidth).map(
    (line) => line + " ".repeat(Math.max(0, width - visibleWidth(line))),
  );
  return lines.length > 0 ? lines : [""];
}

/** Cuts a styled line to `width` columns. */
export function fitLine(line: string, width: number): string {
  return visibleWidth(line) <= width ? line : truncateToWidth(line, width);
}

/** Wraps styled text to `width` columns, keeping styles per line. */
export function wrapLines(text: string, width: number): string[] {
  return text.split("\n").flatMap((line) => wrapTextWithAnsi(line, Math.max(1, width)));
}
