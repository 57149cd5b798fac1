/**
 * Code highlighting with highlight.js's core and a chosen set of languages, registered
 * statically so the bundle holds exactly these (the full set would triple its size).
 */
/** The part of highlight.js the page uses; its own types would pull the DOM library into every program that imports this file. */
interface Hljs {
  registerLanguage(name: string, language: unknown): void;
  getLanguage(name: string): object | undefined;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
}

// static requires: the bundler takes exactly these, and no type of highlight.js leaks out
declare const require: (id: string) => unknown;
const hljs = require("highlight.js/lib/core") as Hljs;

const LANGUAGES: Record<string, unknown> = {
  bash: require("highlight.js/lib/languages/bash"),
  c: require("highlight.js/lib/languages/c"),
  cpp: require("highlight.js/lib/languages/cpp"),
  css: require("highlight.js/lib/languages/css"),
  diff: require("highlight.js/lib/languages/diff"),
  go: require("highlight.js/lib/languages/go"),
  java: require("highlight.js/lib/languages/java"),
  javascript: require("highlight.js/lib/languages/javascript"),
  json: require("highlight.js/lib/languages/json"),
  markdown: require("highlight.js/lib/languages/markdown"),
  python: require("highlight.js/lib/languages/python"),
  rust: require("highlight.js/lib/languages/rust"),
  shell: require("highlight.js/lib/languages/shell"),
  sql: require("highlight.js/lib/languages/sql"),
  typescript: require("highlight.js/lib/languages/typescript"),
  xml: require("highlight.js/lib/languages/xml"),
  yaml: require("highlight.js/lib/languages/yaml"),
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** Escapes text for an HTML text or attribute context. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** The language a fence names, when it is one of ours (aliases such as `ts` and `sh` count). */
export function knownLanguage(lang: string | undefined): string | undefined {
  const name = lang?.trim().split(/\s+/)[0]?.toLowerCase();
  if (name === undefined || name === "") return undefined;
  return hljs.getLanguage(name) === undefined ? undefined : name;
}

/** Highlighted HTML of `code` (escaped plain text when the language is unknown or highlighting fails). */
export function highlightCode(code: string, lang: string | undefined): string {
  const language = knownLanguage(lang);
  if (language === undefined) return escapeHtml(code);
  try {
    return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    // a highlighter failure must not cost the reader the code itself
    return escapeHtml(code);
  }
}
