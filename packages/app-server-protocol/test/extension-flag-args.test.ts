import { describe, expect, test } from "bun:test";
import { type ExtensionFlagType, resolveFlagArgs } from "../src/extension-flag-args.ts";

const types: Record<string, ExtensionFlagType> = { plan: "boolean", ssh: "string" };
const typeOf = (name: string) => types[name];

describe("resolveFlagArgs", () => {
  test("a boolean flag is true and leaves the next word; a string flag takes =value or the next word", () => {
    const resolved = resolveFlagArgs(
      [
        { name: "plan", next: "fix it" },
        { name: "ssh", next: "me@host" },
      ],
      typeOf,
    );
    expect(resolved.values).toEqual(
      new Map<string, boolean | string>([
        ["plan", true],
        ["ssh", "me@host"],
      ]),
    );
    expect(resolved.consumedNext).toEqual(new Set([1]));
    expect(resolved.problems).toEqual([]);
    const inline = resolveFlagArgs([{ name: "ssh", inline: "a@b", next: "prompt" }], typeOf);
    expect(inline.values.get("ssh")).toBe("a@b");
    expect(inline.consumedNext.size).toBe(0);
  });

  test("a later argument for the same flag wins", () => {
    const resolved = resolveFlagArgs(
      [
        { name: "ssh", inline: "one" },
        { name: "ssh", inline: "two" },
      ],
      typeOf,
    );
    expect(resolved.values.get("ssh")).toBe("two");
  });

  test("unregistered flags, a string flag without a value and a boolean with =value are problems, in order", () => {
    const resolved = resolveFlagArgs(
      [
        { name: "frobnicate", next: "word" },
        { name: "other", inline: "1" },
        { name: "ssh" },
        { name: "ssh", inline: "" },
        { name: "plan", inline: "yes" },
      ],
      typeOf,
    );
    expect(resolved.problems).toEqual([
      "unknown option '--frobnicate'",
      "unknown option '--other=1'",
      "--ssh needs a value",
      "--ssh needs a value",
      "--plan takes no value",
    ]);
    expect(resolved.values.size).toBe(0);
    expect(resolved.consumedNext.size).toBe(0);
  });
});
