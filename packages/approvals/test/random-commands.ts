import { BASH_ATTACKS, BASH_CASES } from "./shell-corpus.ts";

/** A small seeded PRNG (mulberry32) so every run sees the same "random" commands. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Pieces a mutation inserts: benign arguments, quoting, every shell metacharacter,
// look-alike letters, known command words. No absolute paths to real programs.
const FRAGMENTS = [
  " -x",
  " --short",
  " a",
  " src/a.ts",
  " 'a b'",
  ' "c d"',
  "'",
  '"',
  "\\",
  ";",
  "&",
  "&&",
  "|",
  "||",
  ">",
  "<",
  "(",
  ")",
  "{",
  "}",
  "$",
  "$(",
  " $(ls)",
  " `ls`",
  " $X",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax under test, not a template
  "${X}",
  "`",
  "#",
  "!",
  "*",
  "?",
  "[",
  "~",
  "=",
  "\n",
  "\t",
  " ",
  "\u0456",
  "\u00a0",
  "\uff1b",
  " git",
  " status",
  " log",
  " -c",
  " -C",
  " --pre=x",
  " -exec",
  " --output=x",
  " run",
  " test",
  " -m",
  " pytest",
  "A=1 ",
  "env ",
  "sudo ",
  "bash -c ",
  "xargs ",
  "--no-pager ",
];

const ALPHABET = "abcgilmnorstuxz -_./=:'\"\\;&|<>(){}$`#!*?[]~\t\n";

/** Generates `count` reproducible commands: mutated corpus commands and raw random strings. */
export function randomCommands(seed: number, count: number): string[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const bases = [...BASH_CASES, ...BASH_ATTACKS].map((c) => c.command).filter((c) => c.length < 200);
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    if (random() < 0.2) {
      const length = 1 + Math.floor(random() * 30);
      let text = "";
      for (let i = 0; i < length; i++) text += pick(ALPHABET.split(""));
      out.push(text);
      continue;
    }
    let command = pick(bases);
    const mutations = Math.floor(random() * 4);
    for (let m = 0; m < mutations; m++) {
      const at = Math.floor(random() * (command.length + 1));
      const kind = random();
      if (kind < 0.6) command = command.slice(0, at) + pick(FRAGMENTS) + command.slice(at);
      else if (kind < 0.8) command = command.slice(0, at) + command.slice(at + 1);
      else command = command.slice(0, at) + pick(ALPHABET.split("")) + command.slice(at + 1);
    }
    out.push(command);
  }
  return out;
}
