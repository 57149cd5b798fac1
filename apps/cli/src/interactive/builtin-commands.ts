/** The terminal's own slash commands. Anything else goes to the server as text (extension commands, templates, skills). */
import type { BuiltinCommand } from "./completion.ts";
import type { CommandRunner } from "./interactive-app.ts";

/** Names and descriptions, for `/` completion and `/help`-style listings. */
export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [{ name: "quit", description: "Exit knightcode" }];

/** Runs a built-in; false when `name` is not one. */
export const runBuiltinCommand: CommandRunner = async (app, name) => {
  switch (name) {
    case "quit":
    case "exit":
      app.quit(0);
      return true;
    default:
      return false;
  }
};
