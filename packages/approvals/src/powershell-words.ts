import {
  isPlainAscii,
  MAX_ANALYSED_COMMAND_LENGTH,
  MAX_ANALYSED_WORDS,
  type ShellWord,
} from "./shell-word.ts";

// Characters PowerShell may read as literal text in argument mode. Everything else
// (`; | & > < ( ) { } [ ] $ @ , # % * ? ~` and the backtick escape) can start an
// expression, splat, redirect, call, comment or glob, so it is refused outright.
const BARE = /^[A-Za-z0-9_\-./\\:=+^]$/;

/**
 * Splits a PowerShell command into words, or returns null unless it is one plain
 * native-style invocation. Stricter than the bash tokenizer: double-quoted strings
 * must not contain `$` or a backtick, single-quoted strings must not contain a
 * doubled quote, a string must be a whole word, and the stop-parsing token `--%` is refused.
 */
export function powershellWords(command: string): ShellWord[] | null {
  if (command.length > MAX_ANALYSED_COMMAND_LENGTH || !isPlainAscii(command)) return null;
  const words: ShellWord[] = [];
  let text = "";
  let quoted = false;
  let inWord = false;
  let i = 0;
  const end = (): boolean => {
    if (inWord) {
      if (text === "--%") return false;
      words.push({ text, quoted });
    }
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
    if (ch === "'" || ch === '"') {
      // Only whole-word strings: how PowerShell glues `a'b'` together has changed between versions.
      if (inWord) return null;
      const close = command.indexOf(ch, i + 1);
      if (close < 0) return null;
      const after = command[close + 1];
      if (after !== undefined && after !== " " && after !== "\t" && after !== ch) return null;
      // '' inside single quotes is an escaped quote; refuse rather than interpret.
      if (command[close + 1] === ch) return null;
      const body = command.slice(i + 1, close);
      if (ch === '"' && /[$`]/.test(body)) return null;
      if (body.includes("`")) return null;
      text += body;
      quoted = true;
      inWord = true;
      i = close + 1;
      continue;
    }
    if (!BARE.test(ch)) return null;
    text += ch;
    inWord = true;
    i++;
  }
  if (!end()) return null;
  return words;
}
