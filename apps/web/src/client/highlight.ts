/**
 * Code highlighting with highlight.js's core and a chosen set of languages, registered
 * statically so the bundle holds exactly these (the full set would triple its size).
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = {
  bash,
  c,
  cpp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  markdown,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
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
