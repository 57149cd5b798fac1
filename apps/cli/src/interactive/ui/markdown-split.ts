/**
 * Where a growing markdown text can be cut into finished top-level blocks, so each
 * finished block can be rendered once and only the growing tail re-rendered per frame.
 *
 * A cut is made only where rendering the parts separately and joining their lines is
 * byte-identical to rendering the whole: after a block known to end cleanly (lines of
 * plain prose, one closed fenced code block, or a bullet list of one-line items with one
 * bullet, which no further item or list follows), then blank lines, before a line that
 * starts at column 0; never inside fenced code. Headings (the lexer folds the blank
 * lines after one into it), other lists, quotes, tables and indented code are never the
 * block before a cut: where they end, and the spacing after them, is the lexer's call.
 * Constructs that reach across blank lines or backwards
 * rule out cutting the whole text: reference-link definitions (`]:` can change how
 * earlier links render), HTML (`<pre>` and friends span blank lines), tabs (the renderer
 * widens them, which can turn a line into a fence) and indented fences (one inside a
 * list item ends where the item ends). A randomized test compares split and whole.
 */

/** An open code fence: its character and length (a close needs as many or more). */
type Fence = { char: "`" | "~"; length: number };

const OPENING_FENCE = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;
const CLOSING_FENCE = /^ {0,3}(`{3,}|~{3,}) *$/;
/** A line of a plain paragraph: starts with a letter, holds no table cell border. */
const PROSE_LINE = /^[A-Za-z][^|]*$/;
/** An item of a plain bullet list on one line: bullet, one space, then text as in prose. */
const LIST_ITEM = /^[-*+] [A-Za-z][^|]*$/;
/** A line that would continue a list or start another one (marked could join them). */
const LIST_START = /^([-*+]|\d{1,9}[.)])( |$)/;
const UNSPLITTABLE = /\t|<|\]:/;

/** Scans complete lines as the text grows; remembers where finished blocks end. */
export class MarkdownSplitter {
  private text = "";
  /** Offset of the first line not yet scanned. */
  private scanned = 0;
  private fence: Fence | undefined;
  private afterBlank = false;
  /** Whether the text since the last cut holds anything but blank lines. */
  private hasContent = false;
  private unsplittable = false;
  /** Whether the current block is one whose rendering ends the same alone as mid-text. */
  private blockSafe = false;
  /** Whether the current block's fenced code has closed (nothing may follow it unseparated). */
  private fenceClosed = false;
  /** The bullet of the current block when it is a list of one-line items. */
  private listBullet: string | undefined;
  private cutOffsets: number[] = [];

  /** The offsets where finished blocks end (ascending); none when the text cannot be cut. */
  cuts(text: string): readonly number[] {
    if (!text.startsWith(this.text.slice(0, this.scanned))) this.reset();
    this.text = text;
    let end = text.indexOf("\n", this.scanned);
    while (end !== -1 && !this.unsplittable) {
      this.scanLine(this.scanned, end);
      this.scanned = end + 1;
      end = text.indexOf("\n", this.scanned);
    }
    // the unfinished last line counts too: a definition there already reaches back
    if (this.unsplittable || UNSPLITTABLE.test(text.slice(this.scanned))) return [];
    return this.cutOffsets;
  }

  private reset(): void {
    this.scanned = 0;
    this.fence = undefined;
    this.afterBlank = false;
    this.hasContent = false;
    this.unsplittable = false;
    this.blockSafe = false;
    this.fenceClosed = false;
    this.listBullet = undefined;
    this.cutOffsets = [];
  }

  private scanLine(start: number, end: number): void {
    const line = this.text.slice(start, end);
    if (UNSPLITTABLE.test(line)) {
      this.unsplittable = true;
      return;
    }
    const blank = line.trim() === "";
    // an indented fence may belong to a list item, whose end the lexer decides
    if (/^ +(```|~~~)/.test(line)) {
      this.unsplittable = true;
      return;
    }
    if (this.fence) {
      const close = CLOSING_FENCE.exec(line)?.[1];
      if (close?.[0] === this.fence.char && close.length >= this.fence.length) {
        this.fence = undefined;
        this.fenceClosed = true;
      }
    } else if (!blank) {
      const startsBlock = this.afterBlank || !this.hasContent;
      // after a list, another item (or list) would join it, however many blank lines between
      const listGoesOn = this.afterBlank && this.listBullet !== undefined && LIST_START.test(line);
      if (this.afterBlank && this.hasContent && this.blockSafe && /^\S/.test(line) && !listGoesOn) {
        this.cutOffsets.push(start);
        this.hasContent = false;
      }
      const open = OPENING_FENCE.exec(line)?.[1];
      if (open) this.fence = { char: open[0] as Fence["char"], length: open.length };
      // only a block of prose lines, one fenced code block, or a list of one-line items
      // with one bullet is known to end cleanly
      if (listGoesOn) {
        // a list with blank lines between its items is loose: where it ends is the lexer's call
        this.blockSafe = false;
      } else if (startsBlock) {
        this.listBullet = LIST_ITEM.test(line) ? line[0] : undefined;
        this.blockSafe = open !== undefined || PROSE_LINE.test(line) || this.listBullet !== undefined;
      } else if (this.listBullet !== undefined) {
        this.blockSafe = this.blockSafe && LIST_ITEM.test(line) && line[0] === this.listBullet;
      } else {
        this.blockSafe = this.blockSafe && !this.fenceClosed && open === undefined && PROSE_LINE.test(line);
      }
      if (startsBlock) this.fenceClosed = false;
    }
    if (!blank) this.hasContent = true;
    this.afterBlank = blank && !this.fence;
  }
}
