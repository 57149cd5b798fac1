/**
 * The streamed markdown block's plain-prose path must draw exactly what pi-tui's Markdown
 * draws for the same text: every line, every style byte, every width (without the spaces
 * the library pads lines with, which the block leaves off).
 */
import { describe, expect, test } from "bun:test";
import { Markdown } from "@mariozechner/pi-tui";
import { style } from "../src/interactive/ui/style.ts";
import { MarkdownBlock, markdownTheme, withoutPadding } from "../src/interactive/ui/text.ts";
import { random } from "./support/seeded-random.ts";

const PIECES = [
  "word",
  "a",
  "Longerwordthatneedsbreakingacrosslines",
  "x1",
  "END-OF-REPLY",
  "it's",
  "(so)",
  "yes?",
  "end.",
  "semi;",
  "comma,",
  "-",
  " ",
  "  ",
  "e.g.",
  "w12",
];

function prose(next: () => number): string {
  const words = Array.from(
    { length: 1 + Math.floor(next() * 60) },
    () => PIECES[Math.floor(next() * PIECES.length)]!,
  );
  // streamed text is cut anywhere, so it often ends in spaces or mid-word
  return `W${words.join(" ")}${next() < 0.3 ? " " : ""}`;
}

describe("MarkdownBlock plain prose", () => {
  for (const dim of [false, true]) {
    test(`renders as pi-tui's Markdown does (${dim ? "dimmed" : "plain"})`, () => {
      const next = random(dim ? 7 : 13);
      for (let i = 0; i < 400; i++) {
        const text = prose(next);
        const width = 1 + Math.floor(next() * 130);
        const library = new Markdown(text, 0, 0, markdownTheme, dim ? { color: style.dim } : undefined);
        const block = new MarkdownBlock(text, { dim });
        expect({ text, width, lines: block.render(width) }).toEqual({
          text,
          width,
          lines: library.render(width).map(withoutPadding),
        });
      }
      // the dimmed case really compares style bytes
      if (dim) expect(new MarkdownBlock("Some words", { dim }).render(20)[0]).toContain("\u001b[2m");
    });
  }

  test("text with markdown in it still goes through the library", () => {
    const text = "Some **bold** and a list:\n\n- one\n- two";
    expect(new MarkdownBlock(text).render(40)).toEqual(
      new Markdown(text, 0, 0, markdownTheme).render(40).map(withoutPadding),
    );
    expect(
      new MarkdownBlock(text).render(40).some((line) => line.includes("bold") && !line.includes("**")),
    ).toBe(true);
  });

  test("a grown text is re-rendered, not served from the cache", () => {
    const block = new MarkdownBlock("Hello");
    expect(block.render(20)[0]!.trimEnd()).toBe("Hello");
    block.setText("Hello world");
    expect(block.render(20)[0]!.trimEnd()).toBe("Hello world");
    block.setText("Hello *world*");
    expect(block.render(20)[0]).not.toContain("*");
  });

  test("lines come without the library's padding, styles and inner spaces kept", () => {
    const text = "A **bold** word\n\n```ts\nconst a = 1;  \n```\n\n- item";
    const library = new Markdown(text, 0, 0, markdownTheme).render(40);
    // the library pads every line to the width; the block draws the same cells unpadded
    expect(library.every((line) => line.endsWith(" "))).toBe(true);
    const lines = new MarkdownBlock(text).render(40);
    expect(lines).toHaveLength(library.length);
    expect(lines.some((line) => line.endsWith(" "))).toBe(false);
    expect(lines.map((line, i) => library[i]!.startsWith(line))).not.toContain(false);
    expect(withoutPadding("\u001b[1mA\u001b[22m  b   ")).toBe("\u001b[1mA\u001b[22m  b");
    expect(withoutPadding("   ")).toBe("");
    expect(withoutPadding("")).toBe("");
  });
});
