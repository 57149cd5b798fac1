/**
 * Syntax highlighting for code blocks through `cli-highlight`. It takes ~200 ms to load,
 * so it loads on the first code block rather than at start-up; without color (NO_COLOR)
 * code stays plain.
 */
import { createRequire } from "node:module";

type Highlighter = {
  highlight(code: string, options: { language?: string; ignoreIllegals?: boolean }): string;
  supportsLanguage(name: string): boolean;
};

const colorless = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "";
let loaded: Highlighter | undefined;

/** Code lines with ANSI colors for `lang` (plain when the language is unknown). */
export function highlightCode(code: string, lang?: string): string[] {
  if (colorless || lang === undefined || lang === "") return code.split("\n");
  loaded ??= createRequire(import.meta.url)("cli-highlight") as Highlighter;
  if (!loaded.supportsLanguage(lang)) return code.split("\n");
  try {
    return loaded.highlight(code, { language: lang, ignoreIllegals: true }).split("\n");
  } catch {
    // a highlighter failure must not cost the reader the code itself
    return code.split("\n");
  }
}
