/** One word of a simple command after quote removal. */
export interface ShellWord {
  /** The word's value as the program would receive it. */
  readonly text: string;
  /** True if any quoting or backslash escaping was used inside the word. */
  readonly quoted: boolean;
}

/**
 * Longest command the analysers look at. Anything longer gets no prefix: a grant
 * shown to the user must be about a command a person can actually read.
 */
export const MAX_ANALYSED_COMMAND_LENGTH = 4096;

/** Most words the analysers accept in one command. */
export const MAX_ANALYSED_WORDS = 256;

/**
 * Printable ASCII and tab only. Everything else (newlines, control characters,
 * look-alike letters, fullwidth punctuation, bidi controls, odd spaces) is refused
 * before tokenizing, so no character can mean one thing to us and another to a shell.
 */
export function isPlainAscii(command: string): boolean {
  for (let i = 0; i < command.length; i++) {
    const code = command.charCodeAt(i);
    if (code === 0x09) continue;
    if (code < 0x20 || code > 0x7e) return false;
  }
  return true;
}
