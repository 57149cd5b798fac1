/**
 * Turns highlight.js's HTML (nested `<span class="hljs-…">` around escaped text) into
 * terminal lines. Each run of text gets the style of its innermost span that the theme
 * styles, opened and closed around that run alone, so every line stands on its own and
 * no style leaks into the next line or out of the code block.
 */

/** How text of a scope is drawn. */
export type ScopeStyle = (text: string) => string;

/** The style for a scope such as `title.function` (undefined: keep the enclosing style). */
export type CodeTheme = (scope: string) => ScopeStyle | undefined;

const TOKEN = /<span class="([^"]*)">|<\/span>|&([a-z]+|#\d+|#x[0-9a-f]+);|[^<&]+/giy;

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/**
 * The scope a span's classes stand for: highlight.js writes scope `title.class.inherited`
 * as `hljs-title class_ inherited__`, a sub-language as `language-css` (no scope).
 */
export function scopeOfClasses(classes: string): string | undefined {
  const [first, ...rest] = classes.split(" ").filter((name) => name !== "");
  if (first === undefined || !first.startsWith("hljs-")) return undefined;
  return [first.slice("hljs-".length), ...rest.map((name) => name.replace(/_+$/, ""))].join(".");
}

function decodeEntity(name: string): string {
  if (name.startsWith("#")) {
    const code =
      name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    if (code > 0x10ffff) throw new Error(`highlighted code holds an invalid character reference &${name};`);
    return String.fromCodePoint(code);
  }
  const text = NAMED_ENTITIES[name.toLowerCase()];
  if (text === undefined) throw new Error(`highlighted code holds an unknown entity &${name};`);
  return text;
}

/**
 * The lines of highlighted code, styled by `theme`. Throws on markup highlight.js does not
 * write (another tag, an unbalanced span, a bare `<` or `&`), so the caller can fall back
 * to the plain code rather than show a half-converted line.
 */
export function highlightedHtmlToLines(html: string, theme: CodeTheme): string[] {
  const lines: string[] = [];
  let line = "";
  /** Text not yet drawn, all in one style: runs in the same style are drawn as one. */
  let pending = "";
  let pendingStyle: ScopeStyle | undefined;
  /** The style in force inside each open span (undefined: unstyled). */
  const open: (ScopeStyle | undefined)[] = [];
  const flush = () => {
    if (pending !== "") line += pendingStyle ? pendingStyle(pending) : pending;
    pending = "";
  };
  const addText = (text: string) => {
    const style = open.at(-1);
    if (style !== pendingStyle) flush();
    pendingStyle = style;
    const pieces = text.split("\n");
    pending += pieces[0]!;
    for (let i = 1; i < pieces.length; i++) {
      flush();
      lines.push(line);
      line = "";
      pending = pieces[i]!;
    }
  };
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < html.length) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(html);
    if (match === null) throw new Error(`highlighted code holds unexpected markup at ${at}`);
    const [token, classes, entity] = match;
    if (classes !== undefined) {
      const scope = scopeOfClasses(classes);
      open.push((scope === undefined ? undefined : styleOf(scope, theme)) ?? open.at(-1));
    } else if (token === "</span>") {
      if (open.length === 0) throw new Error(`highlighted code closes a span it never opened at ${at}`);
      open.pop();
    } else if (entity !== undefined) {
      addText(decodeEntity(entity));
    } else {
      addText(token);
    }
  }
  if (open.length > 0) throw new Error("highlighted code leaves a span open");
  flush();
  lines.push(line);
  return lines;
}

/** The theme's style for `scope` or, failing that, for its closest parent scope. */
function styleOf(scope: string, theme: CodeTheme): ScopeStyle | undefined {
  for (let name = scope; ; name = name.slice(0, name.lastIndexOf("."))) {
    const found = theme(name);
    if (found !== undefined || !name.includes(".")) return found;
  }
}
