/**
 * Markdown to HTML for replies, with marked. What the model writes is untrusted: raw HTML
 * is shown as text, links keep only http(s) and mailto targets, and images become links,
 * so a reply can neither run script in the page that holds the token nor make the
 * browser fetch anything.
 */
import { Marked, type Tokens } from "marked";
import { escapeHtml, highlightCode, knownLanguage } from "./highlight.ts";

const SAFE_LINK = /^(https?:|mailto:)/i;

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text);
    },
    link({ href, title, tokens }: Tokens.Link): string {
      const text = this.parser.parseInline(tokens);
      if (!SAFE_LINK.test(href.trim())) return text;
      const titleAttribute = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(href)}"${titleAttribute} target="_blank" rel="noopener noreferrer">${text}</a>`;
    },
    image({ href, text }: Tokens.Image): string {
      const label = `[image: ${escapeHtml(text || href)}]`;
      if (!SAFE_LINK.test(href.trim())) return label;
      return `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${label}</a>`;
    },
    code({ text, lang }: Tokens.Code): string {
      const language = knownLanguage(lang);
      const languageClass = language === undefined ? "" : ` language-${escapeHtml(language)}`;
      return `<pre><code class="hljs${languageClass}">${highlightCode(text, lang)}</code></pre>\n`;
    },
  },
});

/** Renders markdown into safe HTML. */
export function renderMarkdown(text: string): string {
  return marked.parse(text, { async: false });
}
