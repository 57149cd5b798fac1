/**
 * The commonest finished parts of a reply, drawn without marked's lexer: a one-line
 * paragraph whose only markup is `**bold**` and `` `code` `` spans, optionally under an ATX
 * heading of the same kind, or a tight bullet list of one-line items of that kind, then
 * blank lines. The library lexes such a part, renders its
 * inline tokens and measures every line through its slow path; here the tokens are read
 * with one regular expression and rendered as the library renders them (same styles,
 * same style prefixes, same wrapping). A text is taken only when marked reads it exactly
 * so: the characters are those of plain prose plus `:`, spans hold only letters and
 * digits (code spans no spaces), no two spans touch, nothing reads as an autolink. A
 * randomized test compares it with the library.
 */
import { type MarkdownTheme, wrapTextWithAnsi } from "@mariozechner/pi-tui";

type Style = (text: string) => string;

/** A text run, a bold span or a code span. */
type Inline = { kind: "text" | "strong" | "code"; text: string };

/** One inline piece at a time: plain characters, `**letters and digits**`, `` `code` ``. */
const PIECE =
  /([A-Za-z0-9 ,.;:'?()-]+)|\*\*([A-Za-z0-9](?:[A-Za-z0-9 ]*[A-Za-z0-9])?)\*\*|`([A-Za-z0-9_.-]+)`/y;
/** What marked would read as an autolink (GFM: URLs, `www.`, e-mail addresses). */
const AUTOLINK = /:\/\/|www\./i;
/** A paragraph line, or an ATX heading, then the blank lines up to the cut. */
const PART = /^(?:(#{1,6}) ([^\n]+)\n+)?([^\n]+)\n([ \n]*)$/;
/** Bullet items of one line each, then the blank lines up to the cut. */
const LIST_PART = /^((?:([-*+]) [^\n]+\n)(?:\2 [^\n]+\n)*)([ \n]*)$/;
/** How item and paragraph text may start (not as another list, a number, a quote...). */
const TEXT_START = /^[A-Za-z*`]/;

/** The inline pieces of `line`, or undefined when it is not of the simple kind. */
function readInline(line: string): Inline[] | undefined {
  if (line !== line.trim() || line.includes("  ") || AUTOLINK.test(line)) return undefined;
  const pieces: Inline[] = [];
  PIECE.lastIndex = 0;
  while (PIECE.lastIndex < line.length) {
    const match = PIECE.exec(line);
    if (match === null) return undefined;
    const piece: Inline =
      match[1] !== undefined
        ? { kind: "text", text: match[1] }
        : match[2] !== undefined
          ? { kind: "strong", text: match[2] }
          : { kind: "code", text: match[3]! };
    // spans that touch form other delimiter runs (`****`, ``` `` ```)
    if (piece.kind !== "text" && pieces.at(-1)?.kind === piece.kind) return undefined;
    pieces.push(piece);
  }
  return pieces;
}

/** The opening codes a style writes before its text, as the library finds them. */
function stylePrefix(style: Style): string {
  const styled = style("\u0000");
  const at = styled.indexOf("\u0000");
  return at >= 0 ? styled.slice(0, at) : "";
}

/** The library's inline rendering of `pieces`: each text styled, each span re-opening the style after it. */
function renderInline(pieces: Inline[], theme: MarkdownTheme, applyText: Style, prefix: string): string {
  let result = "";
  for (const piece of pieces) {
    if (piece.kind === "text") result += applyText(piece.text);
    else if (piece.kind === "strong")
      result += theme.bold(trimPrefix(applyText(piece.text), prefix)) + prefix;
    else result += theme.code(piece.text) + prefix;
  }
  return trimPrefix(result, prefix);
}

function trimPrefix(text: string, prefix: string): string {
  let result = text;
  while (prefix !== "" && result.endsWith(prefix)) result = result.slice(0, -prefix.length);
  return result;
}

/**
 * The lines pi-tui's Markdown draws for `text` at `width` (unpadded) when the text is a
 * simple paragraph part; undefined for any other text.
 */
export function renderSimpleParagraphPart(
  text: string,
  width: number,
  theme: MarkdownTheme,
  color: Style | undefined,
): string[] | undefined {
  const part = PART.exec(text);
  if (part === null) return undefined;
  const [, hashes, headingText, paragraph, blankLines] = part;
  const paragraphPieces = readInline(paragraph!);
  // a paragraph that starts like a list item, a number (ordered list) or a quote is not one
  if (paragraphPieces === undefined || !TEXT_START.test(paragraph!)) return undefined;
  const headingPieces = hashes === undefined ? [] : readInline(headingText!);
  if (headingPieces === undefined) return undefined;
  const contentWidth = Math.max(1, width);
  const lines: string[] = [];
  const draw = (line: string) => {
    for (const wrapped of wrapTextWithAnsi(line, contentWidth)) lines.push(wrapped);
  };
  if (hashes !== undefined) {
    const headingStyle: Style =
      hashes.length === 1
        ? (t) => theme.heading(theme.bold(theme.underline(t)))
        : (t) => theme.heading(theme.bold(t));
    const rendered = renderInline(headingPieces, theme, headingStyle, stylePrefix(headingStyle));
    draw(hashes.length >= 3 ? headingStyle(`${hashes} `) + rendered : rendered);
    // the heading takes the blank lines after it, so the paragraph follows it directly
    lines.push("");
  }
  const applyText: Style = color ?? ((t) => t);
  draw(renderInline(paragraphPieces, theme, applyText, color ? stylePrefix(color) : ""));
  // blank lines after the paragraph are the lexer's space token: one empty line
  if (blankLines !== "") lines.push("");
  return lines;
}

/**
 * The lines pi-tui's Markdown draws for `text` at `width` (unpadded) when the text is a
 * simple bullet list part; undefined for any other text.
 */
export function renderSimpleListPart(
  text: string,
  width: number,
  theme: MarkdownTheme,
  color: Style | undefined,
): string[] | undefined {
  const part = LIST_PART.exec(text);
  if (part === null) return undefined;
  const items: Inline[][] = [];
  for (const line of part[1]!.slice(0, -1).split("\n")) {
    const itemText = line.slice(2);
    const pieces = TEXT_START.test(itemText) ? readInline(itemText) : undefined;
    if (pieces === undefined) return undefined;
    items.push(pieces);
  }
  const contentWidth = Math.max(1, width);
  const applyText: Style = color ?? ((t) => t);
  const prefix = color ? stylePrefix(color) : "";
  const lines: string[] = [];
  for (const pieces of items) {
    // the library draws every bullet as "- ", whichever the text used
    const line = theme.listBullet("- ") + renderInline(pieces, theme, applyText, prefix);
    for (const wrapped of wrapTextWithAnsi(line, contentWidth)) lines.push(wrapped);
  }
  if (part[3] !== "") lines.push("");
  return lines;
}
