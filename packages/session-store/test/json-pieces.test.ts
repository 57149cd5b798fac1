import { describe, expect, test } from "bun:test";
import { JSON_SLICE_UNITS, jsonPieces } from "../src/index.ts";

const joined = (value: unknown) => [...jsonPieces(value)].join("");

describe("jsonPieces", () => {
  test("joins to exactly what JSON.stringify writes, for every kind of JSON data", () => {
    const values: unknown[] = [
      null,
      true,
      0,
      -1.5e300,
      Number.NaN,
      "",
      'quote " backslash \\ newline \n control \u0001 é 😀',
      [],
      {},
      [1, undefined, () => 1, Symbol("s"), "x", null],
      { a: 1, skipped: undefined, fn: () => 1, nested: { b: [{ c: "d" }] }, 'key "q"': 2 },
      { at: new Date(0), custom: { toJSON: (key: string) => `toJSON(${key})` } },
      { dropped: { toJSON: () => undefined }, kept: 1 },
    ];
    for (const value of values) expect(joined(value)).toBe(JSON.stringify(value));
  });

  test("undefined and functions at the top yield nothing, as JSON.stringify gives undefined", () => {
    expect([...jsonPieces(undefined)]).toEqual([]);
    expect([...jsonPieces(() => 1)]).toEqual([]);
  });

  test("a long string comes in bounded slices that join to its JSON, whatever it contains", () => {
    const plain = "x".repeat(JSON_SLICE_UNITS * 3 + 17);
    // a surrogate pair straddles the first slice boundary; escapes and lone surrogates elsewhere
    const mixed = `${"a".repeat(JSON_SLICE_UNITS - 1)}😀${'"\\\n\u0007é\ud800'.repeat(JSON_SLICE_UNITS / 2)}\udc00`;
    for (const text of [plain, mixed]) {
      const pieces = [...jsonPieces({ text })];
      expect(pieces.join("")).toBe(JSON.stringify({ text }));
      expect(pieces.length).toBeGreaterThan(3);
      // every slice is bounded: its JSON is at most 6 units per source unit
      for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(JSON_SLICE_UNITS * 6);
    }
  });
});
