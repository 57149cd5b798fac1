/**
 * Locating and applying `edit` replacements. Matching runs on a normalized view of the
 * file (line endings as LF, and in a second pass trailing whitespace ignored) whose
 * characters map back to offsets in the original, so the splice touches only the matched
 * text: untouched lines keep their bytes, including their line endings.
 */

/** Why an edit could not be applied. */
export type EditErrorCode = "notFound" | "ambiguous" | "overlap" | "emptyOldText" | "noChange";

/** An edit that cannot be applied; `code` says which rule it broke. */
export class EditError extends Error {
  readonly code: EditErrorCode;
  /** 0-based index of the offending edit, when one edit is at fault. */
  readonly editIndex: number | undefined;

  constructor(code: EditErrorCode, message: string, editIndex?: number) {
    super(message);
    this.name = "EditError";
    this.code = code;
    this.editIndex = editIndex;
  }
}

/** One replacement as the model sends it. */
export interface TextEdit {
  oldText: string;
  newText: string;
}

interface View {
  text: string;
  /** Original offset of each view character, plus one entry for the end. */
  map: Int32Array;
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}

function buildView(source: string, ignoreTrailingWhitespace: boolean): View {
  const map = new Int32Array(source.length + 1);
  const parts: string[] = [];
  let size = 0;
  let start = 0;
  while (start <= source.length) {
    const newline = source.indexOf("\n", start);
    const lineEnd = newline === -1 ? source.length : newline;
    // The terminator begins at "\r" for CRLF lines; a view "\n" maps to that start.
    const terminator =
      newline !== -1 && lineEnd > start && source.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
    let contentEnd = terminator;
    if (ignoreTrailingWhitespace)
      while (contentEnd > start && isBlank(source.charCodeAt(contentEnd - 1))) contentEnd--;
    parts.push(source.slice(start, contentEnd));
    for (let i = start; i < contentEnd; i++) map[size++] = i;
    if (newline === -1) break;
    parts.push("\n");
    map[size++] = terminator;
    start = newline + 1;
  }
  map[size] = source.length;
  return { text: parts.join(""), map: map.subarray(0, size + 1) };
}

function normalizeNeedle(text: string, ignoreTrailingWhitespace: boolean): string {
  const lf = text.replace(/\r\n/g, "\n");
  return ignoreTrailingWhitespace ? lf.replace(/[ \t]+(?=\n|$)/g, "") : lf;
}

function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) found.push(at);
  return found;
}

/** A located edit: the original range to replace. */
interface Range {
  start: number;
  end: number;
  index: number;
}

function locate(source: string, view: View, needle: string, at: number): { start: number; end: number } {
  const end = at + needle.length;
  const start = view.map[at]!;
  // A match that ends a line also takes that line's ignored trailing whitespace.
  const atLineEnd = end === view.text.length || view.text.charCodeAt(end) === 10;
  if (atLineEnd) return { start, end: view.map[end]! };
  const last = view.map[end - 1]!;
  // A matched line break that stands for CRLF covers both characters, or the "\n" would be left behind.
  const lastIsCrlf = view.text.charCodeAt(end - 1) === 10 && source.charCodeAt(last) === 13;
  return { start, end: last + (lastIsCrlf ? 2 : 1) };
}

/** The line ending most lines of `source` use. */
export function dominantEol(source: string): "\r\n" | "\n" {
  const crlf = source.split("\r\n").length - 1;
  const lf = source.split("\n").length - 1 - crlf;
  return crlf > lf ? "\r\n" : "\n";
}

/** Applies every edit to `source` (no BOM); each must match exactly once and none may overlap. */
export function applyEdits(source: string, edits: readonly TextEdit[], displayPath: string): string {
  const label = (i: number) => (edits.length > 1 ? `Edit ${i + 1} of ${edits.length}: ` : "");
  let exact: View | undefined;
  let loose: View | undefined;
  const ranges: Range[] = [];
  for (const [index, edit] of edits.entries()) {
    if (edit.oldText === "")
      throw new EditError("emptyOldText", `${label(index)}oldText must not be empty.`, index);
    exact ??= buildView(source, false);
    const needle = normalizeNeedle(edit.oldText, false);
    let view = exact;
    let hits = occurrences(exact.text, needle);
    let used = needle;
    if (hits.length === 0) {
      loose ??= buildView(source, true);
      used = normalizeNeedle(edit.oldText, true);
      view = loose;
      hits = used === "" ? [] : occurrences(loose.text, used);
    }
    if (hits.length === 0) {
      throw new EditError(
        "notFound",
        `${label(index)}oldText was not found in ${displayPath}. It must match the file exactly, including indentation; read the file again to see its current content.`,
        index,
      );
    }
    if (hits.length > 1) {
      throw new EditError(
        "ambiguous",
        `${label(index)}oldText matches ${hits.length} places in ${displayPath}; include more surrounding lines so it matches exactly one.`,
        index,
      );
    }
    ranges.push({ ...locate(source, view, used, hits[0]!), index });
  }

  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1]!;
    const current = sorted[i]!;
    if (current.start < previous.end) {
      throw new EditError(
        "overlap",
        `Edits ${previous.index + 1} and ${current.index + 1} overlap in ${displayPath}; merge them into one edit.`,
        current.index,
      );
    }
  }

  const eol = dominantEol(source);
  let result = source;
  for (const range of sorted.reverse()) {
    const replacement = normalizeNeedle(edits[range.index]!.newText, false).replace(/\n/g, eol);
    result = result.slice(0, range.start) + replacement + result.slice(range.end);
  }
  if (result === source) {
    throw new EditError(
      "noChange",
      `No changes: the replacement text is identical to the current text in ${displayPath}.`,
    );
  }
  return result;
}
