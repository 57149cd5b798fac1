import { describe, expect, test } from "bun:test";
import { powershellWords } from "@knightcode/approvals";

const texts = (command: string) => powershellWords(command)?.map((w) => w.text) ?? null;

describe("powershellWords", () => {
  test("splits plain words and keeps backslashes literal", () => {
    expect(texts("git diff -- src\\a.ts")).toEqual(["git", "diff", "--", "src\\a.ts"]);
  });

  test("accepts whole-word quoted strings without expansion", () => {
    expect(texts("Select-String -Pattern 'a b' \"c d\"")).toEqual([
      "Select-String",
      "-Pattern",
      "a b",
      "c d",
    ]);
    expect(powershellWords("x 'a'")![1]!.quoted).toBe(true);
  });

  test("refuses strings glued to other text", () => {
    expect(powershellWords("--format='%h'")).toBeNull();
    expect(powershellWords("'a'b")).toBeNull();
  });

  test("refuses doubled quotes, expansions and backticks inside strings", () => {
    for (const command of ["x 'a''b'", 'x "a""b"', 'x "$a"', 'x "`n"', "x 'a`b'"]) {
      expect(powershellWords(command)).toBeNull();
    }
  });

  test("refuses every PowerShell operator character", () => {
    for (const ch of [
      ";",
      "|",
      "&",
      ">",
      "<",
      "(",
      ")",
      "{",
      "}",
      "[",
      "]",
      "$",
      "@",
      ",",
      "#",
      "%",
      "*",
      "?",
      "~",
      "`",
      "!",
    ]) {
      expect(powershellWords(`a b${ch}c`)).toBeNull();
    }
  });

  test("refuses the stop-parsing token", () => {
    expect(powershellWords("git status --% x")).toBeNull();
  });

  test("refuses unterminated strings, newlines and non-ASCII dashes or quotes", () => {
    for (const command of ["a 'b", 'a "b', "a\nb", "a \u2013b", "a \u2018b\u2019"]) {
      expect(powershellWords(command)).toBeNull();
    }
  });
});
