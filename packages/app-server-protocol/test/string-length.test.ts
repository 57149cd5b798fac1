/**
 * The pre-compiled validators count string lengths in code points, as JSON Schema's
 * minLength/maxLength do: the generated module carries its own counter instead of
 * importing ajv's CommonJS helper, whose default import differs between runtimes.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validateRequestParams } from "../src/index.ts";

const search = (searchId: string) =>
  validateRequestParams("file/search", { cwd: "/p", query: "q", searchId })?.ok;

describe("string lengths in the pre-compiled validators", () => {
  test("a surrogate pair is one character: 128 emoji fit a 128-character searchId, 129 do not", () => {
    expect(search("😀".repeat(128))).toBe(true);
    expect(search("😀".repeat(129))).toBe(false);
  });

  test("a lone surrogate is one character", () => {
    expect(search("\ud800".repeat(128))).toBe(true);
    expect(search(`${"\udc00".repeat(128)}x`)).toBe(false);
    expect(search(`${"a".repeat(127)}\ud83d`)).toBe(true);
  });

  test("minLength counts the same way: one emoji is a non-empty client name", () => {
    expect(validateRequestParams("initialize", { clientInfo: { name: "😀" } })?.ok).toBe(true);
    expect(validateRequestParams("initialize", { clientInfo: { name: "" } })?.ok).toBe(false);
  });

  test("the generated module imports nothing", () => {
    const source = readFileSync(join(import.meta.dir, "..", "src", "generated", "validators.ts"), "utf8");
    expect(source).not.toMatch(/^import /m);
    expect(source).not.toContain("require(");
  });
});
