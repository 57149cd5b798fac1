/**
 * How `/mcp__<server>__<prompt>` words map to a prompt's declared arguments: `name=value`
 * for a declared name, other words positionally into the arguments still unset, in
 * declared order. The rendering itself runs against a real server in the app-server e2e
 * tests (`mcp-prompts.test.ts`).
 */
import { describe, expect, test } from "bun:test";
import type { McpPromptCommand } from "@knightcode/mcp";
import { promptArgumentsOf } from "../src/commands/mcp-prompt-input.ts";

function command(args: McpPromptCommand["arguments"]): McpPromptCommand {
  return {
    name: "mcp__s__p",
    description: "d",
    server: "s",
    prompt: "p",
    arguments: args,
    get: () => Promise.reject(new Error("not rendered in these tests")),
    complete: () => Promise.reject(new Error("not completed in these tests")),
  };
}

const trip = command([
  { name: "from", required: true },
  { name: "to", required: true },
  { name: "note", required: false },
]);

function refused(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("expected a refusal");
}

describe("MCP prompt arguments", () => {
  test("positional words fill the declared arguments in order; quotes group words", () => {
    expect(promptArgumentsOf(trip, `Oslo "New York"`)).toEqual({ from: "Oslo", to: "New York" });
    expect(promptArgumentsOf(trip, "a b c")).toEqual({ from: "a", to: "b", note: "c" });
  });

  test("name=value sets a declared argument; positional words skip the ones already set", () => {
    expect(promptArgumentsOf(trip, "to=Rome Oslo")).toEqual({ to: "Rome", from: "Oslo" });
    expect(promptArgumentsOf(trip, "note=x=y Oslo Rome")).toEqual({ note: "x=y", from: "Oslo", to: "Rome" });
    // an undeclared name is an ordinary word
    expect(promptArgumentsOf(trip, "k=v Rome")).toEqual({ from: "k=v", to: "Rome" });
  });

  test("a missing required argument, a word too many and a name given twice are invalidParams", () => {
    const missing = refused(() => promptArgumentsOf(trip, "Oslo"));
    expect(missing.code).toBe("invalidParams");
    expect(missing.message).toBe("/mcp__s__p needs to (it takes <from> <to> [note])");
    const extra = refused(() => promptArgumentsOf(trip, "a b c d"));
    expect(extra.code).toBe("invalidParams");
    expect(extra.message).toBe("/mcp__s__p takes <from> <to> [note]; too many arguments: d");
    const none = refused(() => promptArgumentsOf(command([]), "x"));
    expect(none.message).toBe("/mcp__s__p takes no arguments; too many arguments: x");
    const twice = refused(() => promptArgumentsOf(trip, "to=a to=b"));
    expect(twice.code).toBe("invalidParams");
    expect(twice.message).toBe("/mcp__s__p got to= twice");
    expect(promptArgumentsOf(command([]), "")).toEqual({});
  });
});
