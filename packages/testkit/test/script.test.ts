import { expect, test } from "bun:test";
import { splitIntoDeltas } from "../src/index.ts";

test("splitIntoDeltas makes the requested number of contiguous pieces", () => {
  expect(splitIntoDeltas("abcdef", 3)).toEqual(["ab", "cd", "ef"]);
  expect(splitIntoDeltas("abc", 10)).toEqual(["a", "b", "c"]);
  expect(splitIntoDeltas("héllo👋", 2).join("")).toBe("héllo👋");
  expect(splitIntoDeltas("", 3)).toEqual([""]);
});
