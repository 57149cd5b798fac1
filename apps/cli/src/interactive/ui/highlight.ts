/**
 * Syntax highlighting for code blocks: highlight.js's core, with each language registered
 * the first time a block uses it (and the languages it embeds, such as CSS in HTML), its
 * HTML output turned into styled lines by `highlightedHtmlToLines`. Without color
 * (NO_COLOR), for a language it does not know, or when anything fails, code stays plain.
 *
 * A block still streaming is highlighted again every frame. So that a long block does not
 * cost each frame its whole length, the lines up to a point where highlighting is back at
 * the language's top level (no comment, string or other construct open) are kept, and
 * only the text after that point is highlighted again: highlighting from such a point on
 * is what highlighting the whole block gives.
 */
import { codeTheme } from "./code-theme.ts";
import { type CodeTheme, highlightedHtmlToLines } from "./highlight-html.ts";
import { type Hljs, LANGUAGE_ALIASES, LANGUAGE_LOADERS, type LanguageFn } from "./highlight-languages.ts";

/** Code whose highlighting ended at the language's top level, and its lines. */
type Progress = { language: string; code: string; lines: string[] };

/** How many blocks' progress and results are kept (a reply's tail rarely holds more than one or two). */
const REMEMBERED = 4;

export interface CodeHighlighterOptions {
  /** The definition of a language by canonical name (default: highlight.js's own module). */
  loadLanguage?: (name: string) => LanguageFn | undefined;
  theme?: CodeTheme;
}

/** Highlights code blocks into styled lines, one per line of code. */
export class CodeHighlighter {
  private hljs: Hljs | undefined;
  private readonly unavailable = new Set<string>();
  /** Where highlighting of recent blocks was back at the top level, and the lines up to there. */
  private progress: Progress[] = [];
  /** The last blocks highlighted, whole: a frame often draws the same block again. */
  private recent: Progress[] = [];
  private readonly loadLanguage: (name: string) => LanguageFn | undefined;
  private readonly theme: CodeTheme;

  constructor(options: CodeHighlighterOptions = {}) {
    this.loadLanguage = options.loadLanguage ?? loadBundledLanguage;
    this.theme = options.theme ?? codeTheme;
  }

  /** The lines of `code` styled for the fence's language `lang` (plain when unknown). */
  highlight(code: string, lang: string | undefined): string[] {
    try {
      const language = lang === undefined ? undefined : this.language(lang);
      return language === undefined ? code.split("\n") : this.highlightIn(language, code);
    } catch {
      // a highlighter failure must not cost the reader the code itself
      return code.split("\n");
    }
  }

  private core(): Hljs {
    // required here, not imported: start-up does not pay for it, only the first code block
    this.hljs ??= (require("highlight.js/lib/core") as Hljs).newInstance();
    return this.hljs;
  }

  /** The registered name for a fence's language, loading it on first use. */
  private language(lang: string): string | undefined {
    // the info string may go on after the language (```ts title="x")
    const wanted = lang.trim().split(/\s/, 1)[0]!.toLowerCase();
    if (wanted === "") return undefined;
    if (this.core().getLanguage(wanted) !== undefined) return wanted;
    const name = LANGUAGE_ALIASES.get(wanted) ?? wanted;
    return this.register(name) ? name : undefined;
  }

  /** Registers `name` and the languages it embeds; false when it cannot be had. */
  private register(name: string): boolean {
    const hljs = this.core();
    if (hljs.getLanguage(name) !== undefined) return true;
    if (this.unavailable.has(name)) return false;
    let definition: object;
    try {
      const load = this.loadLanguage(name);
      if (load === undefined) {
        this.unavailable.add(name);
        return false;
      }
      // called here rather than by registerLanguage, which would log a failure to the terminal
      definition = load(hljs);
    } catch {
      this.unavailable.add(name);
      return false;
    }
    hljs.registerLanguage(name, () => definition);
    for (const embedded of subLanguages(definition)) this.register(embedded);
    return true;
  }

  private highlightIn(language: string, code: string): string[] {
    const same = this.recent.find((entry) => entry.language === language && entry.code === code);
    if (same !== undefined) return same.lines;
    const lines = this.highlightGrowing(language, code) ?? this.run(language, code).lines;
    this.recent = [{ language, code, lines }, ...this.recent].slice(0, REMEMBERED);
    return lines;
  }

  /**
   * The lines of a block that continues one highlighted before (it is streaming), from
   * the progress kept for it; undefined for a block seen for the first time, which one
   * pass over the whole highlights at least as cheaply.
   */
  private highlightGrowing(language: string, code: string): string[] | undefined {
    const known = this.progressFor(language, code);
    const grows = (entry: Progress) => entry.language === language && code.startsWith(entry.code);
    if (known === undefined && !this.recent.some(grows)) return undefined;
    const lines = known?.lines ?? [];
    const rest = code.slice(known?.code.length ?? 0);
    const lineEnd = rest.lastIndexOf("\n") + 1;
    if (lineEnd > 0) {
      const complete = this.run(language, rest.slice(0, lineEnd));
      if (complete.atTop) {
        // the last element is the empty line after the final newline
        const doneLines = lines.concat(complete.lines.slice(0, -1));
        this.remember(known, language, code.slice(0, code.length - rest.length + lineEnd), doneLines);
        return doneLines.concat(this.run(language, rest.slice(lineEnd)).lines);
      }
    }
    return lines.concat(this.run(language, rest).lines);
  }

  /** Highlights `code` from the language's top level; whether it ends back there. */
  private run(language: string, code: string): { lines: string[]; atTop: boolean } {
    const hljs = this.core();
    const result = hljs.highlight(code, { language, ignoreIllegals: true });
    return {
      lines: highlightedHtmlToLines(result.value, this.theme),
      atTop: result.errorRaised === undefined && result._top === hljs.getLanguage(language),
    };
  }

  /** The longest remembered progress that `code` continues. */
  private progressFor(language: string, code: string): Progress | undefined {
    let best: Progress | undefined;
    for (const entry of this.progress) {
      if (entry.language !== language || !code.startsWith(entry.code)) continue;
      if (best === undefined || entry.code.length > best.code.length) best = entry;
    }
    return best;
  }

  private remember(known: Progress | undefined, language: string, code: string, lines: string[]): void {
    const entry = known ?? { language, code, lines };
    entry.code = code;
    entry.lines = lines;
    this.progress = [entry, ...this.progress.filter((other) => other !== entry)].slice(0, REMEMBERED);
  }
}

function loadBundledLanguage(name: string): LanguageFn | undefined {
  const module = LANGUAGE_LOADERS.get(name)?.() as LanguageFn | { default: LanguageFn } | undefined;
  return typeof module === "object" ? module.default : module;
}

/** The languages a definition embeds (`subLanguage`), anywhere in its modes. */
function subLanguages(definition: object): Set<string> {
  const found = new Set<string>();
  const seen = new Set<object>();
  const visit = (value: unknown): void => {
    if (typeof value !== "object" || value === null || value instanceof RegExp || seen.has(value)) return;
    seen.add(value);
    const sub = (value as { subLanguage?: unknown }).subLanguage;
    for (const name of Array.isArray(sub) ? sub : [sub]) if (typeof name === "string") found.add(name);
    for (const child of Object.values(value)) visit(child);
  };
  visit(definition);
  return found;
}

const colorless = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "";
let shared: CodeHighlighter | undefined;

/** Code lines with ANSI colors for `lang` (plain when the language is unknown or under NO_COLOR). */
export function highlightCode(code: string, lang?: string): string[] {
  if (colorless) return code.split("\n");
  shared ??= new CodeHighlighter();
  return shared.highlight(code, lang);
}
