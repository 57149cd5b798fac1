import { describe, expect, test } from "bun:test";
import { substituteArgs } from "../src/commands/prompt-expansion.ts";
import { parseCommandArgs, parseSlashCommand } from "../src/commands/slash-command-parse.ts";

describe("prompt template arguments", () => {
  test("quotes group words; positional, all, and sliced arguments substitute in one pass", () => {
    const args = parseCommandArgs(`a "b c" 'd $1' e`);
    expect(args).toEqual(["a", "b c", "d $1", "e"]);
    expect(substituteArgs("$1|$2|$3|$9", args)).toBe("a|b c|d $1|");
    expect(substituteArgs("$@ / $ARGUMENTS", ["x", "y"])).toBe("x y / x y");
    const sliced = ["$", "{@:2} / $", "{@:2:1}"].join("");
    expect(substituteArgs(sliced, ["x", "y", "z"])).toBe("y z / y");
    expect(parseCommandArgs(`empty "" then`)).toEqual(["empty", "", "then"]);
  });

  test("a slash command is /<name> at the very start; its arguments are the rest", () => {
    expect(parseSlashCommand("/compact focus on tests")).toEqual({ name: "compact", args: "focus on tests" });
    expect(parseSlashCommand("/skill:lint")).toEqual({ name: "skill:lint", args: "" });
    expect(parseSlashCommand(" /compact")).toBeUndefined();
    expect(parseSlashCommand("/ compact")).toBeUndefined();
    expect(parseSlashCommand("plain text")).toBeUndefined();
  });
});
