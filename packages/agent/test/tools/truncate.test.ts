import { describe, expect, test } from "bun:test";
import { truncateHead, truncateTail } from "../../src/index.ts";

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}`).join("\n");

describe("truncation", () => {
  test("text within both limits is untouched", () => {
    expect(truncateHead("a\nb\n")).toMatchObject({ content: "a\nb\n", truncated: false, totalLines: 2 });
    expect(truncateTail("a\nb")).toMatchObject({ content: "a\nb", truncated: false, totalLines: 2 });
  });

  test("head keeps the first lines, tail the last, by line count", () => {
    expect(truncateHead(numbered(10), { maxLines: 3 })).toMatchObject({
      content: "1\n2\n3",
      truncatedBy: "lines",
      outputLines: 3,
      totalLines: 10,
    });
    expect(truncateTail(numbered(10), { maxLines: 3 })).toMatchObject({
      content: "8\n9\n10",
      truncatedBy: "lines",
    });
  });

  test("byte limits cut at line boundaries", () => {
    expect(truncateHead("aaaa\nbbbb\ncccc", { maxBytes: 10 })).toMatchObject({
      content: "aaaa\nbbbb",
      truncatedBy: "bytes",
    });
    expect(truncateTail("aaaa\nbbbb\ncccc", { maxBytes: 10 })).toMatchObject({
      content: "bbbb\ncccc",
      truncatedBy: "bytes",
    });
  });

  test("a first line over the limit keeps nothing in head mode and a partial line in tail mode", () => {
    expect(truncateHead("x".repeat(20), { maxBytes: 5 })).toMatchObject({
      content: "",
      firstLineTooLong: true,
    });
    expect(truncateTail(`ab${"é".repeat(5)}`, { maxBytes: 5 })).toMatchObject({
      content: "éé",
      partialFirstLine: true,
    });
  });
});
