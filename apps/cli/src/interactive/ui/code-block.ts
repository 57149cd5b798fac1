/**
 * A markdown part that is exactly one fenced code block, drawn as pi-tui's Markdown draws
 * it (its fence lines, each highlighted line indented, wrapped where too wide) without the
 * library's cost. The library measures every line it draws, and a highlighted line goes
 * through its slow path (escape sequences stripped, the text split into graphemes); for a
 * block still streaming it did that for every line on every frame, so a 2,000-line block
 * cost seconds. Here a line's width is that of its plain code, a line that fits is used as
 * it is, and a line drawn for the previous frame is not drawn again.
 *
 * Only texts that marked reads exactly as this file assumes are taken (see
 * `parseFencedCode`); anything else goes to the library. A randomized test compares both.
 */
import { type MarkdownTheme, visibleWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";

/** A text that is one fenced code block, as marked's lexer reads it. */
export interface FencedCode {
  /** The info string (undefined when there is none). */
  lang: string | undefined;
  code: string;
  /** Whether blank lines follow the closing fence (the library draws one empty line). */
  spaceAfter: boolean;
}

/** An opening fence at column 0 and its info string; a backtick fence's info has no backtick. */
const OPENING = /^(?:(`{3,})([^`\n]*)|(~{3,})([^\n]*))\n/;
/**
 * What the library or marked would read differently from this file: carriage returns
 * (marked turns them into newlines), tabs (the library widens them), other control
 * characters (escape sequences the library would measure as such).
 */
const UNUSUAL = /[\r\t\u0000-\u0008\u000b-\u001f\u007f]/;

/**
 * The fenced code block `text` consists of, or undefined when it is not exactly one (with
 * nothing but blank lines after its closing fence) or holds anything this reading does not
 * cover. A block without its closing fence runs to the end, as marked reads it.
 */
export function parseFencedCode(text: string): FencedCode | undefined {
  const open = OPENING.exec(text);
  if (open === null || UNUSUAL.test(text)) return undefined;
  const fence = open[1] ?? open[3]!;
  const info = (open[2] ?? open[4]!).trim();
  // marked unescapes punctuation in the info string
  if (info.includes("\\")) return undefined;
  const lang = info === "" ? undefined : info;
  const bodyStart = open[0].length;
  for (let lineStart = bodyStart; lineStart <= text.length; ) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    if (closes(text, lineStart, lineEnd, fence)) {
      const rest = text.slice(lineEnd);
      if (!/^[\n ]*$/.test(rest)) return undefined;
      return {
        lang,
        code: text.slice(bodyStart, Math.max(bodyStart, lineStart - 1)),
        spaceAfter: rest.length > 1,
      };
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  // unclosed: the code runs to the end, less one final newline
  const code = text.slice(bodyStart);
  return { lang, code: code.endsWith("\n") ? code.slice(0, -1) : code, spaceAfter: false };
}

/**
 * Whether the line from `start` to `end` is marked's closing fence: up to three spaces,
 * the opening run itself, any more fence characters, then spaces only.
 */
function closes(text: string, start: number, end: number, fence: string): boolean {
  let at = start;
  while (at < end && at - start < 3 && text[at] === " ") at++;
  if (!text.startsWith(fence, at)) return false;
  at += fence.length;
  while (at < end && (text[at] === "`" || text[at] === "~")) at++;
  while (at < end && text[at] === " ") at++;
  return at === end;
}

/** Whether every character is printable ASCII, whose width is its length. */
function isPrintableAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return false;
  }
  return true;
}

/** The line without its trailing spaces (the library pads; blank cells either way). */
function withoutTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line.charCodeAt(end - 1) === 32) end--;
  return end === line.length ? line : line.slice(0, end);
}

/** Draws fenced code parts; keeps the last drawing so a growing block draws only what changed. */
export class FencedCodeDrawer {
  private last:
    | { width: number; lang: string | undefined; highlighted: string[]; drawn: string[][] }
    | undefined;

  constructor(private readonly theme: MarkdownTheme) {}

  /** The lines pi-tui's Markdown draws for `block` at `width`, without its padding. */
  draw(block: FencedCode, width: number): string[] {
    const contentWidth = Math.max(1, width);
    const indent = this.theme.codeBlockIndent ?? "  ";
    const plain = block.code.split("\n");
    const highlighted = this.theme.highlightCode
      ? this.theme.highlightCode(block.code, block.lang)
      : plain.map((line) => this.theme.codeBlock(line));
    const last = this.last?.width === width && this.last.lang === block.lang ? this.last : undefined;
    const drawn: string[][] = [];
    for (let i = 0; i < highlighted.length; i++) {
      const line = highlighted[i]!;
      const kept = last?.highlighted[i] === line ? last.drawn[i] : undefined;
      if (kept !== undefined) {
        drawn.push(kept);
        continue;
      }
      // the highlighter keeps one line per line of code; if it did not, measure the line itself
      const code = highlighted.length === plain.length ? plain[i]! : undefined;
      const lineWidth =
        code !== undefined && isPrintableAscii(code)
          ? indent.length + code.length
          : code !== undefined
            ? visibleWidth(indent) + visibleWidth(code)
            : visibleWidth(indent + line);
      drawn.push(this.fit(indent + line, lineWidth, contentWidth));
    }
    this.last = { width, lang: block.lang, highlighted, drawn };
    const open = this.theme.codeBlockBorder(`\`\`\`${block.lang ?? ""}`);
    const close = this.theme.codeBlockBorder("```");
    const lines = this.fit(open, visibleWidth(open), contentWidth);
    for (const part of drawn) for (const line of part) lines.push(line);
    for (const line of this.fit(close, visibleWidth(close), contentWidth)) lines.push(line);
    if (block.spaceAfter) lines.push("");
    return lines;
  }

  /** The line as the library wraps it, without padding. */
  private fit(line: string, lineWidth: number, contentWidth: number): string[] {
    if (lineWidth <= contentWidth) return [withoutTrailingSpaces(line)];
    return wrapTextWithAnsi(line, contentWidth).map(withoutTrailingSpaces);
  }
}
