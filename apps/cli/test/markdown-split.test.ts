/**
 * A streamed markdown block renders its finished blocks once and only the growing tail
 * every frame. Joined, the parts must draw exactly what pi-tui's Markdown draws for the
 * whole text: every line, every style byte, every width, at every point of the stream
 * (without the spaces the library pads lines with, which the block leaves off).
 */
import { describe, expect, test } from "bun:test";
import { Markdown } from "@mariozechner/pi-tui";
import { MarkdownSplitter } from "../src/interactive/ui/markdown-split.ts";
import { style } from "../src/interactive/ui/style.ts";
import { MarkdownBlock, markdownTheme, withoutPadding } from "../src/interactive/ui/text.ts";
import { random } from "./support/seeded-random.ts";

/** Blocks, including those that span blank lines or reach back to earlier text. */
const BLOCKS = [
  "Plain words in a paragraph that goes on for a while and wraps at narrow widths",
  "Some **bold\ntext** and *em* and `code` across\ntwo lines",
  "Text\n===",
  "Text\n---",
  "# Heading",
  "## Heading *two*",
  "```ts\nconst a = 1;\n\nconst b = 2;\n```",
  "```\nunclosed fence\n\nText inside",
  "~~~~\ncode\n~~~\n\nstill code\n~~~~",
  "``` a`b\nnot a fence",
  "   ```\nindented fence\n\nText\n   ```",
  "- one\n- two\n- three",
  "- one\n\n- two spans\n\n  a blank line\n\nText",
  "1. first\n2. second\n\n   continued",
  "- outer\n  - inner\n\n    inner para",
  "* star item\n+ plus item",
  "- item with **bold** and `code`\n- second item",
  "+ plus one\n+ plus two",
  "* star one\n* star two",
  "- item\nlazy continuation",
  "- item\n  - nested item",
  "- 1. nested ordered",
  "- [ ] task item\n- [x] done item",
  "1. ordered\n2. two",
  "- item ending in two spaces  \n- next",
  "Some **bold words** and `code` in a line.",
  "## Heading with **bold**\n\nA paragraph with **strong** and `x` spans.",
  "### Third level\nDirectly under it, **bold**.",
  "> quote line\nlazy continuation\n\n> second quote",
  ">\n> quote",
  "    indented code\n\n    more code",
  "See [the link][ref] here",
  "[ref]: https://example.com/ref",
  "Inline [link](https://example.com) and https://example.com/bare",
  "<div>\nhtml block\n\nText after blank\n</div>",
  "<pre>\npre block\n\nText inside pre\n</pre>",
  "| a | b |\n|---|---|\n| 1 | 2 |",
  "a | b\n--|--\n1 | 2",
  "***",
  "---",
  "Tab\tseparated\twords",
  "\tTabbed line",
  "Text with trailing spaces  \nhard break",
  "Longwordthatneedsbreakingacrosslinesbecauseitisverylongindeedandkeepsgoing",
  "www.example.com autolink",
  "Text ~~struck~~ text",
];
const SEPARATORS = ["\n", "\n\n", "\n\n", "\n\n\n", "\n \n", " \n\n"];

function markdownText(next: () => number): string {
  let text = next() < 0.1 ? "\n\n" : "";
  const count = 1 + Math.floor(next() * 8);
  for (let i = 0; i < count; i++) {
    // prose often, so many texts have finished blocks to cut off
    text += next() < 0.4 ? BLOCKS[Math.floor(next() * 2)]! : BLOCKS[Math.floor(next() * BLOCKS.length)]!;
    if (i < count - 1 || next() < 0.3) text += SEPARATORS[Math.floor(next() * SEPARATORS.length)]!;
  }
  // streamed text is cut anywhere
  return next() < 0.5 ? text : text.slice(0, Math.floor(next() * text.length) + 1);
}

const whole = (text: string, width: number, dim: boolean) =>
  new Markdown(text, 0, 0, markdownTheme, dim ? { color: style.dim } : undefined)
    .render(width)
    .map(withoutPadding);

describe("MarkdownBlock split rendering", () => {
  for (const dim of [false, true]) {
    test(`renders as pi-tui's Markdown renders the whole text (${dim ? "dimmed" : "plain"})`, () => {
      const next = random(dim ? 21 : 5);
      let split = 0;
      for (let i = 0; i < 1500; i++) {
        const text = markdownText(next);
        const width = 1 + Math.floor(next() * 120);
        if (new MarkdownSplitter().cuts(text).length > 0) split++;
        expect({ text, width, lines: new MarkdownBlock(text, { dim }).render(width) }).toEqual({
          text,
          width,
          lines: whole(text, width, dim),
        });
      }
      // the comparison really covers split texts
      expect(split).toBeGreaterThan(300);
    });
  }

  test("a block streamed delta by delta matches the whole text at every frame and width", () => {
    const next = random(99);
    for (let i = 0; i < 60; i++) {
      const text = markdownText(next);
      const block = new MarkdownBlock("");
      let at = 0;
      while (at < text.length) {
        at = Math.min(text.length, at + 1 + Math.floor(next() * 12));
        block.setText(text.slice(0, at));
        // a resize between frames must not serve another width's lines
        const width = next() < 0.2 ? 20 + Math.floor(next() * 80) : 60;
        expect({ text: text.slice(0, at), lines: block.render(width) }).toEqual({
          text: text.slice(0, at),
          lines: whole(text.slice(0, at), width, false),
        });
      }
    }
  });

  test("cuts after prose, fenced code or a plain list and blank lines, never inside a fence", () => {
    const splitter = new MarkdownSplitter();
    expect(splitter.cuts("One\n\nTwo\n\n- list\n\nThree\n\nFour\n")).toEqual([5, 10, 18, 25]);
    expect(new MarkdownSplitter().cuts("```\na\n\nText\n```\n\nAfter\n")).toEqual([17]);
    // where a list or heading ends is the lexer's to decide: neither is the last finished block
    expect(new MarkdownSplitter().cuts("# Heading\n\nText\n")).toEqual([]);
    // a list of one-line items with one bullet ends cleanly, unless an item or list follows
    expect(new MarkdownSplitter().cuts("- a\n- b\n\nText\n")).toEqual([9]);
    expect(new MarkdownSplitter().cuts("- a\n\n- b\n\nText\n")).toEqual([]);
    expect(new MarkdownSplitter().cuts("- a\n\n1. b\n\nText\n")).toEqual([]);
    expect(new MarkdownSplitter().cuts("- a\n+ b\n\nText\n")).toEqual([]);
    expect(new MarkdownSplitter().cuts("- a\nlazy\n\nText\n")).toEqual([]);
    expect(new MarkdownSplitter().cuts("- a\n  - nested\n\nText\n")).toEqual([]);
    expect(new MarkdownSplitter().cuts("    code\n\nText\n")).toEqual([]);
    expect(new MarkdownSplitter().cuts("  ```\na\n\nText\n  ```\n\nAfter\n")).toEqual([]);
    // reference definitions, HTML and tabs rule out cutting the whole text
    expect(new MarkdownSplitter().cuts("See [a][r]\n\nText\n\n[r]: https://x\n")).toEqual([]);
    expect(new MarkdownSplitter().cuts("<pre>\n\nText\n</pre>\n")).toEqual([]);
    expect(new MarkdownSplitter().cuts("One\n\n\tTwo\n\nThree\n")).toEqual([]);
  });

  test("a tail or block that draws nothing adds no empty line", () => {
    for (const text of ["Text\n\n>\n> ", "Text\n\n>\n>\n\nMore", "Text\n\n>"]) {
      expect({ text, lines: new MarkdownBlock(text).render(30) }).toEqual({
        text,
        lines: whole(text, 30, false),
      });
    }
  });

  test("a definition on the unfinished last line already rules out cutting", () => {
    const splitter = new MarkdownSplitter();
    expect(splitter.cuts("See [a][r]\n\nText\n\n[r]: ht")).toEqual([]);
    expect(splitter.cuts("See [a][r]\n\nText\n\n[r]: https://x")).toEqual([]);
    expect(new MarkdownSplitter().cuts("See [a][r]\n\nText\n\nMore")).toEqual([12]);
  });

  test("a text replaced by one that does not extend it is scanned afresh", () => {
    const splitter = new MarkdownSplitter();
    expect(splitter.cuts("One\n\nTwo\n")).toEqual([5]);
    expect(splitter.cuts("```\nOne\n\nTwo\n")).toEqual([]);
  });
});
