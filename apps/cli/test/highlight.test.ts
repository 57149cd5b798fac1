/**
 * Code-block highlighting: highlight.js's HTML turned into terminal lines, languages
 * loaded on first use by name or alias, plain code whenever highlighting cannot be had,
 * and a block highlighted piece by piece as it streams drawing what highlighting it whole
 * draws.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { codeTheme } from "../src/interactive/ui/code-theme.ts";
import { CodeHighlighter } from "../src/interactive/ui/highlight.ts";
import {
  type CodeTheme,
  highlightedHtmlToLines,
  scopeOfClasses,
} from "../src/interactive/ui/highlight-html.ts";
import { type Hljs, LANGUAGE_ALIASES, LANGUAGE_LOADERS } from "../src/interactive/ui/highlight-languages.ts";

/** A theme whose styles are readable in expectations: `[scope:text]`. */
const bracket =
  (...scopes: string[]): CodeTheme =>
  (scope) =>
    scopes.includes(scope) ? (text) => `[${scope}:${text}]` : undefined;

const ESC = "\u001b";
const plainText = (lines: string[]) => lines.map((line) => line.replace(/\u001b\[[0-9;]*m/g, ""));

describe("highlightedHtmlToLines", () => {
  test("nested spans: the innermost styled scope draws its text, unstyled spans inherit", () => {
    const html =
      '<span class="hljs-string">`a<span class="hljs-subst">${<span class="hljs-number">1</span>' +
      '<span class="hljs-params">x</span>}</span>b`</span> c';
    expect(highlightedHtmlToLines(html, bracket("string", "number"))).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: code under test, not a template
      "[string:`a${][number:1][string:x}b`] c",
    ]);
    // a styled inner scope stops the outer color (subst is drawn plain by the real theme)
    expect(highlightedHtmlToLines(html, bracket("string", "number", "subst"))).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: code under test, not a template
      "[string:`a][subst:${][number:1][subst:x}][string:b`] c",
    ]);
  });

  test("HTML entities decode to the characters they stand for", () => {
    const html = '<span class="hljs-string">&quot;&lt;a&gt; &amp;amp; &#x27;&#39;&quot;</span> &#x1F600;';
    expect(highlightedHtmlToLines(html, bracket("string"))).toEqual([`[string:"<a> &amp; ''"] 😀`]);
  });

  test("a span across lines is closed at each line end and reopened on the next", () => {
    const html = 'x <span class="hljs-comment">/* one\ntwo\n\nthree */</span>\ny';
    expect(highlightedHtmlToLines(html, bracket("comment"))).toEqual([
      "x [comment:/* one]",
      "[comment:two]",
      "",
      "[comment:three */]",
      "y",
    ]);
  });

  test("tiered scopes fall back to their parent scope's style", () => {
    expect(scopeOfClasses("hljs-title class_ inherited__")).toBe("title.class.inherited");
    expect(scopeOfClasses("hljs-keyword")).toBe("keyword");
    expect(scopeOfClasses("language-css")).toBeUndefined();
    const html =
      '<span class="hljs-title class_ inherited__">B</span><span class="hljs-title function_">f</span>';
    expect(highlightedHtmlToLines(html, bracket("title.class", "title"))).toEqual([
      "[title.class:B][title:f]",
    ]);
  });

  test("markup highlight.js does not write is an error, not half-converted text", () => {
    for (const html of [
      "a</span>",
      '<span class="hljs-string">a',
      "<b>a</b>",
      "a < b",
      "a & b",
      "&nbsp;",
      "&#x110000;",
    ]) {
      expect(() => highlightedHtmlToLines(html, bracket()), html).toThrow();
    }
  });
});

describe("CodeHighlighter", () => {
  test("a known language is colored, one styled line per line of code", () => {
    const lines = new CodeHighlighter().highlight('const a = "x";\nreturn a;', "typescript");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(`${ESC}[35mconst${ESC}[39m`);
    expect(lines[0]).toContain(`${ESC}[32m"x"${ESC}[39m`);
    expect(plainText(lines)).toEqual(['const a = "x";', "return a;"]);
  });

  test("aliases load their language on first use", () => {
    for (const [alias, code, colored] of [
      ["ts", "const a = 1;", "const"],
      ["sh", "echo $HOME", "echo"],
      ["py", "def f(): pass", "def"],
      ["js", "let x = 1;", "let"],
      ["yml", "key: 1", "key"],
    ] as const) {
      const lines = new CodeHighlighter().highlight(code, alias);
      expect(lines[0], alias).toMatch(new RegExp(`${ESC}\\[[0-9;]+m${colored}`));
      expect(plainText(lines)).toEqual([code]);
    }
  });

  test("the fence's info string may go on after the language, in any case", () => {
    const lines = new CodeHighlighter().highlight("x = 1", "PY title=example");
    expect(lines[0]).toContain(`${ESC}[33m1${ESC}[39m`);
  });

  test("unknown, missing and hostile language names leave the code plain", () => {
    const highlighter = new CodeHighlighter();
    for (const lang of [
      undefined,
      "",
      "  ",
      "no-such-language",
      "constructor",
      "__proto__",
      "../core",
      "toString",
    ]) {
      expect(highlighter.highlight("const a = 1;\nb", lang), String(lang)).toEqual(["const a = 1;", "b"]);
    }
  });

  test("embedded languages are loaded with the language that embeds them", () => {
    const lines = new CodeHighlighter().highlight("<style>a { color: red }</style>", "html");
    // `color` is a CSS property: highlighted only if CSS was registered along with HTML
    expect(lines[0]).toContain(`${ESC}[36mcolor${ESC}[39m`);
  });

  test("a language that fails to load leaves the code plain, and is not retried", () => {
    let loads = 0;
    const highlighter = new CodeHighlighter({
      loadLanguage: () => {
        loads++;
        throw new Error("broken module");
      },
    });
    expect(highlighter.highlight("const a = 1;", "typescript")).toEqual(["const a = 1;"]);
    expect(highlighter.highlight("const a = 1;", "typescript")).toEqual(["const a = 1;"]);
    expect(loads).toBe(1);
  });

  test("a language whose highlighting throws leaves the code plain", () => {
    const highlighter = new CodeHighlighter({
      loadLanguage: () => () => ({
        name: "boom",
        contains: [
          {
            scope: "keyword",
            begin: /boom/,
            "on:begin": () => {
              throw new Error("mode callback failed");
            },
          },
        ],
      }),
    });
    expect(highlighter.highlight("a boom b\nc", "boom")).toEqual(["a boom b", "c"]);
  });

  test("a failure while drawing the highlighted code leaves the code plain", () => {
    const highlighter = new CodeHighlighter({
      theme: () => () => {
        throw new Error("theme failed");
      },
    });
    expect(highlighter.highlight("const a = 1;\nb", "ts")).toEqual(["const a = 1;", "b"]);
  });

  test("a block highlighted as it streams draws, at every step, what highlighting it whole draws", () => {
    const hljs = (require("highlight.js/lib/core") as Hljs).newInstance();
    const reference = (code: string, language: string) =>
      highlightedHtmlToLines(hljs.highlight(code, { language, ignoreIllegals: true }).value, codeTheme);
    const blocks: [string, string][] = [
      [
        "typescript",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: code under test, not a template
        'const a = `x${1}\ny`;\n/* a\n * long comment\n */\nfunction f(b: string) {\n  return "s" + b;\n}\n\nclass C extends D {}\n',
      ],
      ["python", 'def f():\n    """doc\n    string"""\n    return 1\n\nx = f()  # note\n'],
      [
        "html",
        '<div class="a">\n<style>\na { color: red }\n</style>\n<script>\nlet x = 1;\n</script>\n</div>\n',
      ],
      ["json", '{\n  "a": [1, 2,\n    {"b": null}],\n  "c": "d"\n}\n'],
    ];
    // every language, so embedded ones are there as they are for the highlighter
    for (const [name, load] of LANGUAGE_LOADERS) hljs.registerLanguage(name, load());
    for (const [language, block] of blocks) {
      const streaming = new CodeHighlighter();
      for (let end = 0; end <= block.length; end++) {
        const code = block.slice(0, end);
        expect({ language, code, lines: streaming.highlight(code, language) }).toEqual({
          language,
          code,
          lines: reference(code, language),
        });
      }
    }
  });

  test("NO_COLOR leaves code plain", async () => {
    const module = join(import.meta.dir, "..", "src", "interactive", "ui", "highlight.ts");
    const child = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const { highlightCode } = await import(${JSON.stringify(module)}); process.stdout.write(JSON.stringify(highlightCode("const a = 1;", "ts")));`,
      ],
      { env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe" },
    );
    expect(JSON.parse(await new Response(child.stdout).text())).toEqual(["const a = 1;"]);
    expect(await child.exited).toBe(0);
  });
});

describe("the language table", () => {
  test("every language loads, and declares exactly the aliases the table lists for it", () => {
    const hljs = (require("highlight.js/lib/core") as Hljs).newInstance();
    const listed = new Map<string, string[]>();
    for (const [alias, name] of LANGUAGE_ALIASES) listed.set(name, [...(listed.get(name) ?? []), alias]);
    for (const [name, load] of LANGUAGE_LOADERS) {
      const definition = load()(hljs) as { aliases?: string[] };
      expect({ name, aliases: [...(definition.aliases ?? [])].sort() }).toEqual({
        name,
        aliases: [...(listed.get(name) ?? [])].sort(),
      });
    }
  });
});
