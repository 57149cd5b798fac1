/**
 * A finished part that is a simple paragraph (bold and code spans only), perhaps under a
 * heading, or a bullet list of such one-line items, is drawn without the lexer; it must draw exactly what pi-tui's Markdown draws
 * (less the padding), and texts it does not read exactly must be left to the library.
 */
import { describe, expect, test } from "bun:test";
import { Markdown } from "@mariozechner/pi-tui";
import { renderSimpleListPart, renderSimpleParagraphPart } from "../src/interactive/ui/simple-parts.ts";
import { style } from "../src/interactive/ui/style.ts";
import { markdownTheme, withoutPadding } from "../src/interactive/ui/text.ts";
import { pick, random } from "./support/seeded-random.ts";

/** Pieces the fast path takes. */
const PIECES = [
  "word",
  "Words",
  "x1",
  "it's",
  "(so)",
  "yes?",
  "end.",
  "note:",
  "semi;",
  "a-b",
  "**bold**",
  "**two words**",
  "**b2**",
  "`code`",
  "`snake_case.x`",
  "(**inside**)",
  "**bold**,",
  "`code`.",
];
/** Near misses it must leave to the library. */
const MISSES = [
  "**a **",
  "** a**",
  "*em*",
  "a*b",
  "`a b`",
  "``x``",
  "**a****b**",
  "`a``b`",
  "http://example.com",
  "www.example.com",
  "a@b.co",
  "_under_",
  "~~struck~~",
  "[link](x)",
  "a\\b",
  "&amp;",
  "é",
  "  ",
];
const STARTS = ["1. ", "- ", "> ", "(", "**Lead**", "`lead`", "# ", "12 "];
const AFTER = ["\n", "\n\n", "\n\n", "\n\n\n", "\n \n", "\n\n  "];

function line(next: () => number): string {
  const words = Array.from({ length: 1 + Math.floor(next() * 30) }, () =>
    next() < 0.01 ? pick(next, MISSES) : pick(next, PIECES),
  );
  const start = next() < 0.15 ? pick(next, STARTS) : "";
  return `${start}${next() < 0.8 ? "W" : ""}${words.join(" ")}${next() < 0.05 ? " " : ""}`;
}

function part(next: () => number): string {
  const heading =
    next() < 0.4
      ? `${"#".repeat(1 + Math.floor(next() * 6))} ${line(next)}${pick(next, ["\n", "\n\n", "\n\n\n", "\n \n"])}`
      : "";
  return `${heading}${line(next)}${pick(next, AFTER)}`;
}

const whole = (text: string, width: number, color: ((t: string) => string) | undefined) =>
  new Markdown(text, 0, 0, markdownTheme, color ? { color } : undefined).render(width).map(withoutPadding);

/**
 * Draws `count` generated texts at random widths with `render` and expects each one the
 * fast path takes to match the library line for line; returns how many it took.
 */
function compareWithLibrary(
  next: () => number,
  count: number,
  generate: (next: () => number) => string,
  render: typeof renderSimpleParagraphPart,
  dim: boolean,
): number {
  const color = dim ? style.dim : undefined;
  let drawnHere = 0;
  for (let i = 0; i < count; i++) {
    const text = generate(next);
    const width = 1 + Math.floor(next() * 120);
    const lines = render(text, width, markdownTheme, color);
    if (lines === undefined) continue;
    drawnHere++;
    expect({ text, width, lines: lines.map(withoutPadding) }).toEqual({
      text,
      width,
      lines: whole(text, width, color),
    });
  }
  return drawnHere;
}

describe("simple parts", () => {
  for (const dim of [false, true]) {
    test(`draw what pi-tui's Markdown draws (${dim ? "dimmed" : "plain"})`, () => {
      const drawnHere = compareWithLibrary(random(dim ? 41 : 43), 3000, part, renderSimpleParagraphPart, dim);
      // the comparison really covers the fast path, headings included
      expect(drawnHere).toBeGreaterThan(1000);
    });
  }

  test("takes the common shapes and leaves the rest to the library", () => {
    const takes = (text: string) =>
      renderSimpleParagraphPart(text, 80, markdownTheme, undefined) !== undefined;
    expect(takes("Some **bold** and `code` here.\n\n")).toBe(true);
    expect(takes("## Section 1\n\nText with **bold**.\n\n")).toBe(true);
    expect(takes("**Note** read this: it matters.\n\n")).toBe(true);
    for (const text of [
      "Text with *em*.\n\n",
      "Text with a [link](x).\n\n",
      "See https://example.com now.\n\n",
      "Two\nlines\n\n",
      "1. ordered\n\n",
      "- item\n\n",
      "Trailing space \n\n",
      "Text without a blank line after",
      "## Heading only\n\n",
      "#Not a heading\n\n",
    ]) {
      expect(takes(text), JSON.stringify(text)).toBe(false);
    }
  });

  function listPart(next: () => number): string {
    const bullet = pick(next, ["-", "*", "+"]);
    const items = Array.from({ length: 1 + Math.floor(next() * 5) }, () => {
      // now and then another bullet, an indented item, or no space after the bullet
      const marker = next() < 0.05 ? pick(next, ["-", "*", "+", " -", "1."]) : bullet;
      return `${marker}${next() < 0.03 ? "" : " "}${line(next)}`;
    });
    return `${items.join(next() < 0.05 ? "\n\n" : "\n")}${pick(next, AFTER)}`;
  }

  for (const dim of [false, true]) {
    test(`bullet lists draw what pi-tui's Markdown draws (${dim ? "dimmed" : "plain"})`, () => {
      const drawnHere = compareWithLibrary(random(dim ? 47 : 53), 2000, listPart, renderSimpleListPart, dim);
      expect(drawnHere).toBeGreaterThan(500);
    });
  }

  test("takes plain bullet lists and leaves other lists to the library", () => {
    const takes = (text: string) => renderSimpleListPart(text, 80, markdownTheme, undefined) !== undefined;
    expect(takes("- one\n- two **bold**\n- three `x`\n\n")).toBe(true);
    expect(takes("* star\n* star\n\n")).toBe(true);
    for (const text of [
      "- one\n+ two\n\n",
      "- one\n\n- two\n\n",
      "- one\n  - nested\n\n",
      "1. one\n\n",
      "- [ ] task\n\n",
      "- 2 items\n\n",
    ]) {
      expect(takes(text), JSON.stringify(text)).toBe(false);
    }
  });
});
