/**
 * A part that is one fenced code block is drawn without pi-tui's Markdown; it must draw
 * exactly what the library draws for it (less the padding): every line, every style byte,
 * every width, closed or still streaming, and texts it does not read exactly must be left
 * to the library.
 */
import { describe, expect, test } from "bun:test";
import { Markdown } from "@mariozechner/pi-tui";
import { parseFencedCode } from "../src/interactive/ui/code-block.ts";
import { style } from "../src/interactive/ui/style.ts";
import { MarkdownBlock, markdownTheme, withoutPadding } from "../src/interactive/ui/text.ts";
import { pick, random } from "./support/seeded-random.ts";

const OPENINGS = ["```", "````", "~~~", "~~~~"];
const INFOS = [
  "",
  "ts",
  "typescript",
  "py",
  "json",
  "sh",
  "html",
  " ts",
  "ts title=x",
  "no-such-language",
  "c++",
];
const CODE_LINES = [
  "const a = 1;",
  'let s = "a string";',
  "/* a comment",
  "   that goes on */",
  "def f(x):",
  '    return x + "é"',
  '{"a": [1, 2, null]}',
  "<div class='x'>&amp;</div>",
  "echo $HOME | grep x",
  "",
  "   ",
  "trailing spaces   ",
  "``",
  "```",
  "````",
  "~~~",
  "   ```",
  "    ```",
  "```ts",
  "``` ~",
  "中文 and wide ２ characters",
  "emoji 👍🏽 in code",
  "a very long line that needs wrapping at narrow widths because it keeps going and going past the edge",
  "averyveryverylongtokenwithoutanyspacesthatmustbebrokencharacterbycharacteratnarrowwidths",
  "back\\slash and `tick`",
];
const AFTER_CLOSE = ["", "\n", "\n\n", "\n\n\n", "\n \n", "\n  "];

function fencedText(next: () => number): string {
  const opening = pick(next, OPENINGS);
  const lines = Array.from({ length: Math.floor(next() * 8) }, () => pick(next, CODE_LINES));
  let text = `${opening}${pick(next, INFOS)}\n${lines.join("\n")}`;
  if (next() < 0.7) {
    const closing = next() < 0.8 ? opening : pick(next, [...OPENINGS, `${opening}\``, `  ${opening}  `]);
    text += `${lines.length > 0 ? "\n" : ""}${closing}${pick(next, AFTER_CLOSE)}`;
  } else if (next() < 0.3) {
    text += "\n";
  }
  return text;
}

const whole = (text: string, width: number, dim: boolean) =>
  new Markdown(text, 0, 0, markdownTheme, dim ? { color: style.dim } : undefined)
    .render(width)
    .map(withoutPadding);

describe("fenced code parts", () => {
  for (const dim of [false, true]) {
    test(`draw what pi-tui's Markdown draws (${dim ? "dimmed" : "plain"})`, () => {
      const next = random(dim ? 31 : 17);
      let drawnHere = 0;
      for (let i = 0; i < 1500; i++) {
        const text = fencedText(next);
        const width = 1 + Math.floor(next() * 100);
        if (parseFencedCode(text) !== undefined) drawnHere++;
        expect({ text, width, lines: new MarkdownBlock(text, { dim }).render(width) }).toEqual({
          text,
          width,
          lines: whole(text, width, dim),
        });
      }
      // the comparison really covers the drawer, not only the library
      expect(drawnHere).toBeGreaterThan(1000);
    });
  }

  test("after prose, streamed a piece at a time, draw what the library draws at every frame and width", () => {
    const next = random(57);
    for (let i = 0; i < 40; i++) {
      const text = `Some text before the code.\n\n${fencedText(next)}${next() < 0.5 ? "\n\nAnd text after." : ""}`;
      const block = new MarkdownBlock("");
      let at = 0;
      while (at < text.length) {
        at = Math.min(text.length, at + 1 + Math.floor(next() * 6));
        block.setText(text.slice(0, at));
        const width = next() < 0.2 ? 10 + Math.floor(next() * 90) : 50;
        expect({ text: text.slice(0, at), width, lines: block.render(width) }).toEqual({
          text: text.slice(0, at),
          width,
          lines: whole(text.slice(0, at), width, false),
        });
      }
    }
  });

  test("reads the block as marked does: info string, closing fence, what follows it", () => {
    expect(parseFencedCode("```ts\na\n```")).toEqual({ lang: "ts", code: "a", spaceAfter: false });
    expect(parseFencedCode("``` ts x \na\n\n```\n\n")).toEqual({
      lang: "ts x",
      code: "a\n",
      spaceAfter: true,
    });
    expect(parseFencedCode("~~~\n```\n~~~\n")).toEqual({ lang: undefined, code: "```", spaceAfter: false });
    // a shorter run does not close; a longer one, or one with spaces around, does
    expect(parseFencedCode("````\n```\n")).toEqual({ lang: undefined, code: "```", spaceAfter: false });
    expect(parseFencedCode("```\na\n   `````  ")).toEqual({ lang: undefined, code: "a", spaceAfter: false });
    expect(parseFencedCode("```\na\n    ```")).toEqual({
      lang: undefined,
      code: "a\n    ```",
      spaceAfter: false,
    });
    // still streaming: the code runs to the end, less one final newline
    expect(parseFencedCode("```py\nx = 1\n")).toEqual({ lang: "py", code: "x = 1", spaceAfter: false });
  });

  test("leaves to the library what it does not read exactly", () => {
    for (const text of [
      "```ts",
      " ```ts\na\n```",
      "```\na\n```\nText after",
      "```\n\tindented by a tab\n```",
      "```\r\na\r\n```",
      "```t\\s\na\n```",
      "```\n\u001b[31mred\n```",
      "Text\n\n```\na\n```",
    ]) {
      expect(parseFencedCode(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  test("a long block streamed line by line keeps the lines it drew for earlier frames", () => {
    const block = new MarkdownBlock("");
    let text = "```ts\n";
    let previous: string[] = [];
    for (let i = 0; i < 200; i++) {
      text += `const value${i} = compute(${i});\n`;
      block.setText(text);
      const lines = block.render(80);
      // every code line drawn before is drawn again as the very same string
      for (let j = 1; j < previous.length - 2; j++) expect(lines[j]).toBe(previous[j]!);
      previous = lines;
    }
    expect(previous).toEqual(whole(text, 80, false));
  });
});
