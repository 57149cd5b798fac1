import {
  isPlainAscii,
  MAX_ANALYSED_COMMAND_LENGTH,
  MAX_ANALYSED_WORDS,
  type ShellWord,
} from "./shell-word.ts";

// Unquoted, any of these makes the command more than one simple command or changes
// where its input and output go: lists, pipes, background, redirection, subshells,
// groups, comments, history, and every expansion that could alter the words.
const UNQUOTED_FORBIDDEN = new Set([
  ";",
  "&",
  "|",
  "<",
  ">",
  "(",
  ")",
  "{",
  "}",
  "$",
  "`",
  "#",
  "!",
  "*",
  "?",
  "[",
]);
// Inside double quotes bash still expands these.
const DOUBLE_QUOTED_FORBIDDEN = new Set(["$", "`", "!"]);
// After a backslash inside double quotes, only these lose their special meaning.
const DOUBLE_QUOTE_ESCAPABLE = new Set(["$", "`", '"', "\\"]);

/**
 * Splits a bash command into words, or returns null when it is anything other than
 * one simple command made of literal words. Fails closed: unterminated quotes, a
 * trailing backslash, any operator, expansion, glob, brace or tilde expansion, and
 * any non-ASCII or control character all yield null.
 */
export function posixWords(command: string): ShellWord[] | null {
  if (command.length > MAX_ANALYSED_COMMAND_LENGTH || !isPlainAscii(command)) return null;
  const words: ShellWord[] = [];
  let text = "";
  let quoted = false;
  let inWord = false;
  let i = 0;
  const end = (): boolean => {
    if (inWord) words.push({ text, quoted });
    text = "";
    quoted = false;
    inWord = false;
    return words.length <= MAX_ANALYSED_WORDS;
  };
  while (i < command.length) {
    const ch = command[i]!;
    if (ch === " " || ch === "\t") {
      if (!end()) return null;
      i++;
      continue;
    }
    if (ch === "'") {
      const close = command.indexOf("'", i + 1);
      if (close < 0) return null;
      text += command.slice(i + 1, close);
      quoted = true;
      inWord = true;
      i = close + 1;
      continue;
    }
    if (ch === '"') {
      const close = readDoubleQuoted(command, i + 1);
      if (close === null) return null;
      text += close.text;
      quoted = true;
      inWord = true;
      i = close.next;
      continue;
    }
    if (ch === "\\") {
      const next = command[i + 1];
      if (next === undefined) return null;
      text += next;
      quoted = true;
      inWord = true;
      i += 2;
      continue;
    }
    if (UNQUOTED_FORBIDDEN.has(ch)) return null;
    // Tilde expansion happens at a word's start and after = or : in assignment-like words.
    if (ch === "~" && (!inWord || text.endsWith("=") || text.endsWith(":"))) return null;
    text += ch;
    inWord = true;
    i++;
  }
  if (!end()) return null;
  return words;
}

function readDoubleQuoted(command: string, start: number): { text: string; next: number } | null {
  let text = "";
  let i = start;
  while (i < command.length) {
    const ch = command[i]!;
    if (ch === '"') return { text, next: i + 1 };
    if (DOUBLE_QUOTED_FORBIDDEN.has(ch)) return null;
    if (ch === "\\") {
      const next = command[i + 1];
      if (next === undefined) return null;
      // POSIX keeps the backslash unless it escapes one of the few special characters.
      text += DOUBLE_QUOTE_ESCAPABLE.has(next) ? next : ch + next;
      i += 2;
      continue;
    }
    text += ch;
    i++;
  }
  return null;
}
