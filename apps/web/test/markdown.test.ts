import { describe, expect, test } from "bun:test";
import { renderMarkdown } from "../src/client/markdown.ts";

describe("renderMarkdown", () => {
  test("renders headings, lists, emphasis and inline code", () => {
    const html = renderMarkdown("# Title\n\n- *one*\n- `two`\n");
    expect(html).toContain("<h1>Title</h1>");
    expect(html).toContain("<em>one</em>");
    expect(html).toContain("<code>two</code>");
  });

  test("highlights a fenced block of a known language, aliases included", () => {
    const html = renderMarkdown("```ts\nconst answer: number = 42;\n```\n");
    expect(html).toContain('<code class="hljs language-ts">');
    expect(html).toContain('<span class="hljs-keyword">const</span>');
  });

  test("an unknown language stays plain, escaped text", () => {
    const html = renderMarkdown("```nosuchlang\n<b>x</b>\n```\n");
    expect(html).toContain('<code class="hljs">&lt;b&gt;x&lt;/b&gt;</code>');
  });

  test("raw HTML in a reply is shown as text, never as markup", () => {
    const html = renderMarkdown('Hi <script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n');
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
  });

  test("only http(s) and mailto links become links; a javascript: link is its text", () => {
    const html = renderMarkdown(
      "[ok](https://example.com/a?b=1) [bad](javascript:alert(1)) [mail](mailto:a@b.c)",
    );
    expect(html).toContain(
      '<a href="https://example.com/a?b=1" target="_blank" rel="noopener noreferrer">ok</a>',
    );
    expect(html).toContain('<a href="mailto:a@b.c"');
    expect(html).not.toContain("javascript:");
    expect(html).toContain("bad");
  });

  test("an image is a link with its alt text, so the page fetches nothing", () => {
    const html = renderMarkdown("![diagram](https://example.com/d.png) ![local](data:image/png;base64,AAAA)");
    expect(html).not.toContain("<img");
    expect(html).toContain(
      '<a href="https://example.com/d.png" target="_blank" rel="noopener noreferrer">[image: diagram]</a>',
    );
    expect(html).toContain("[image: local]");
    expect(html).not.toContain("data:image");
  });

  test("a link title is escaped", () => {
    const html = renderMarkdown('[x](https://example.com "a\\" onmouseover=\\"alert(1)")');
    expect(html).not.toContain('" onmouseover="');
  });
});
