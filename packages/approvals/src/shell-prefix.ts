import {
  BASH_COMMANDS,
  type CommandSpec,
  POWERSHELL_COMMANDS,
  type SubcommandSpec,
} from "./command-table.ts";
import { posixWords } from "./posix-words.ts";
import { powershellWords } from "./powershell-words.ts";
import type { ShellKind } from "./session-grants.ts";
import type { ShellWord } from "./shell-word.ts";

/** A positively understood command: its prefix and whether it only reads. */
export interface ShellCommandAnalysis {
  /** The words a grant for this command remembers, e.g. `["git", "status"]`. */
  readonly prefix: readonly string[];
  /** True when the recognized command and subcommand only read (used by plan mode). */
  readonly readOnly: boolean;
}

// Script, target and module names that may join a prefix: no paths, no options.
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:-]*$/;

/**
 * The prefix a session grant for `command` would remember, or null when the command
 * is not a simple, recognized form. Fails closed: when unsure, null.
 */
export function shellPrefix(command: string, shell: ShellKind): string[] | null {
  const analysis = analyzeShellCommand(command, shell);
  return analysis === null ? null : [...analysis.prefix];
}

/** Full analysis behind `shellPrefix`; null means no prefix. */
export function analyzeShellCommand(command: string, shell: ShellKind): ShellCommandAnalysis | null {
  if (typeof command !== "string") return null;
  const posix = posixWords(command);
  // PowerShell must also pass the bash tokenizer, so it is never looser than bash.
  const words = shell === "bash" || posix === null ? posix : powershellWords(command);
  if (words === null || words.length === 0) return null;
  return matchWords(words, shell === "bash" ? BASH_COMMANDS : POWERSHELL_COMMANDS);
}

function matchWords(
  words: readonly ShellWord[],
  table: ReadonlyMap<string, CommandSpec>,
): ShellCommandAnalysis | null {
  const head = words[0]!;
  // A quoted or escaped name (`\git`, `'git'`, `g"i"t`) is how aliases and functions get bypassed; refuse it.
  if (head.quoted) return null;
  const spec = table.get(head.text);
  if (spec === undefined) return null;
  const prefix = [head.text];
  let rest = 1;
  let readOnly = spec.readOnly;
  let subSpec: SubcommandSpec | undefined;

  if (spec.subcommands !== undefined) {
    while (rest < words.length && !words[rest]!.quoted && spec.leadingFlags?.includes(words[rest]!.text))
      rest++;
    const subWord = words[rest];
    if (subWord === undefined || subWord.quoted) return null;
    subSpec = spec.subcommands.get(subWord.text);
    if (subSpec === undefined) return null;
    prefix.push(subWord.text);
    readOnly = subSpec.readOnly;
    rest++;
    if (subSpec.name !== undefined) {
      const nameWord = words[rest];
      if (nameWord === undefined || !isName(nameWord)) return null;
      if (subSpec.name !== "any" && !subSpec.name.includes(nameWord.text)) return null;
      prefix.push(nameWord.text);
      rest++;
    }
  } else if (spec.singleTarget === true) {
    if (words.length > 2) return null;
    const target = words[1];
    if (target !== undefined) {
      if (!isName(target)) return null;
      prefix.push(target.text);
    }
    rest = words.length;
  }

  const denied = [...(spec.denyOptions ?? []), ...(subSpec?.denyOptions ?? [])];
  for (const word of words.slice(rest)) {
    if (deniedOption(word.text, denied, spec.denyShortFlags)) return null;
  }
  return { prefix, readOnly };
}

function isName(word: ShellWord): boolean {
  return !word.quoted && NAME.test(word.text);
}

function deniedOption(text: string, denied: readonly string[], shortFlags: string | undefined): boolean {
  for (const option of denied) {
    if (text === option || text.startsWith(`${option}=`)) return true;
    // GNU getopt and git accept any unambiguous abbreviation of a long option (`--out=x`).
    if (option.startsWith("--")) {
      const name = text.split("=", 1)[0]!;
      if (name.length >= 3 && name.startsWith("--") && option.startsWith(name)) return true;
    }
    // Single-letter short options also take their value glued on: `-Zflag`.
    if (/^-[A-Za-z]$/.test(option) && text.startsWith(option)) return true;
  }
  if (shortFlags !== undefined && /^-[A-Za-z0-9]/.test(text) && !text.startsWith("--")) {
    for (const letter of text.slice(1)) if (shortFlags.includes(letter)) return true;
  }
  return false;
}
