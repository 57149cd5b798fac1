import { describe, expect, test } from "bun:test";
import { resolveToolPath } from "../../src/index.ts";

describe("resolveToolPath", () => {
  test("relative paths resolve against the working directory, ~ against home, @ is ignored", () => {
    expect(resolveToolPath("src/a.ts", "/p", "/home/u")).toBe("/p/src/a.ts");
    expect(resolveToolPath("../x", "/p/q", "/home/u")).toBe("/p/x");
    expect(resolveToolPath("/abs/./f", "/p", "/home/u")).toBe("/abs/f");
    expect(resolveToolPath("~", "/p", "/home/u")).toBe("/home/u");
    expect(resolveToolPath("~/notes.md", "/p", "/home/u")).toBe("/home/u/notes.md");
    expect(resolveToolPath("@src/a.ts", "/p", "/home/u")).toBe("/p/src/a.ts");
  });
});
