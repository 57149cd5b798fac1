import { describe, expect, test } from "bun:test";
import { MAX_ANALYSED_COMMAND_LENGTH, MAX_ANALYSED_WORDS, posixWords } from "@knightcode/approvals";

const texts = (command: string) => posixWords(command)?.map((w) => w.text) ?? null;

describe("posixWords", () => {
  test("splits on spaces and tabs and removes quotes", () => {
    expect(texts("git  log\t--grep 'a b' \"c d\" e\\ f")).toEqual([
      "git",
      "log",
      "--grep",
      "a b",
      "c d",
      "e f",
    ]);
  });

  test("marks any quoting or escaping in a word", () => {
    expect(posixWords("a 'b' c\"d\" \\e")!.map((w) => w.quoted)).toEqual([false, true, true, true]);
  });

  test("joins adjacent quoted parts into one word", () => {
    expect(texts(`a'b'"c"d`)).toEqual(["abcd"]);
  });

  test("keeps the backslash before ordinary characters inside double quotes", () => {
    expect(texts('"a\\.b" "\\$x" "\\\\"')).toEqual(["a\\.b", "$x", "\\"]);
  });

  test("single quotes keep everything literal, including $ and backticks", () => {
    expect(texts("'$(rm x)' '`x`' '!'")).toEqual(["$(rm x)", "`x`", "!"]);
  });

  test("empty quotes make an empty word", () => {
    expect(texts("a '' \"\"")).toEqual(["a", "", ""]);
  });

  test("a tilde inside a word is literal, at its start or after = or : it expands", () => {
    expect(texts("HEAD~1")).toEqual(["HEAD~1"]);
    expect(texts("'~'")).toEqual(["~"]);
    expect(texts("~")).toBeNull();
    expect(texts("a=~/x")).toBeNull();
    expect(texts("a:~/x")).toBeNull();
  });

  test("refuses every operator and expansion character when unquoted", () => {
    for (const ch of [";", "&", "|", "<", ">", "(", ")", "{", "}", "$", "`", "#", "!", "*", "?", "["]) {
      expect(posixWords(`a b${ch}c`)).toBeNull();
    }
  });

  test("refuses $, backtick and ! inside double quotes", () => {
    for (const ch of ["$", "`", "!"]) expect(posixWords(`a "b${ch}c"`)).toBeNull();
  });

  test("refuses unterminated quotes and a trailing backslash", () => {
    for (const command of ["a 'b", 'a "b', "a \\", 'a "b\\"']) expect(posixWords(command)).toBeNull();
  });

  test("refuses control characters and anything outside ASCII", () => {
    for (const command of ["a\nb", "a\rb", "a\u0000b", "a\u007fb", "caf\u00e9", "a\u00a0b", "\u{1f600}"]) {
      expect(posixWords(command)).toBeNull();
    }
  });

  test("refuses commands over the length and word limits", () => {
    expect(posixWords("a".repeat(MAX_ANALYSED_COMMAND_LENGTH))).toHaveLength(1);
    expect(posixWords("a".repeat(MAX_ANALYSED_COMMAND_LENGTH + 1))).toBeNull();
    expect(posixWords(Array(MAX_ANALYSED_WORDS).fill("a").join(" "))).toHaveLength(MAX_ANALYSED_WORDS);
    expect(
      posixWords(
        Array(MAX_ANALYSED_WORDS + 1)
          .fill("a")
          .join(" "),
      ),
    ).toBeNull();
  });

  test("an empty command has no words", () => {
    expect(posixWords("  \t ")).toEqual([]);
  });
});
