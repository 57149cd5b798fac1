/** Recognizing a slash command at the start of input text, and splitting its arguments. */

/** `/name args`: the command name (without `/`) and the rest of the text after one run of whitespace. */
export interface SlashCommand {
  name: string;
  args: string;
}

/** The command the text starts with, or undefined when it does not start with `/<name>`. */
export function parseSlashCommand(text: string): SlashCommand | undefined {
  const match = /^\/([^\s/]\S*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match) return undefined;
  return { name: match[1]!, args: (match[2] ?? "").trim() };
}

/** Splits command arguments on whitespace; single or double quotes group words. */
export function parseCommandArgs(text: string): string[] {
  const args: string[] = [];
  let current = "";
  let quote: '"' | "'" | undefined;
  let inWord = false;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) args.push(current);
      current = "";
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (inWord) args.push(current);
  return args;
}
