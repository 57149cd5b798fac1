/** Recognizing a slash command at the start of input text. */

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
