/**
 * `command/complete`: the values an MCP server suggests for the argument the last word
 * of `/mcp__<server>__<prompt> words...` fills, by the same binding rule the turn uses
 * (`mcp-prompt-input.ts`): a `name=` word fills that argument, any other word the next
 * one still unset. The words before it are sent as the completion's context, so a
 * server can narrow one argument by another.
 */
import { AppServerError, type CommandCompleteResult } from "@knightcode/app-server-protocol";
import type { McpPromptCommand } from "@knightcode/mcp";
import { bindPromptWords, namedArgument } from "./mcp-prompt-input.ts";
import { parseCommandArgs } from "./slash-command-parse.ts";

/** Completes the last word of `text`; `invalidParams` for text that is no MCP prompt command or a server that fails. */
export async function completePromptCommand(
  commands: readonly McpPromptCommand[],
  text: string,
): Promise<CommandCompleteResult> {
  const match = /^\/(\S+)\s([\s\S]*)$/.exec(text);
  if (match === null) {
    throw new AppServerError(
      "invalidParams",
      "command/complete takes a command and its arguments: /<name> <words>",
    );
  }
  const [, name, rest = ""] = match;
  const command = commands.find((c) => c.name === name);
  if (command === undefined) {
    throw new AppServerError("invalidParams", `/${name} is not an MCP prompt of this thread`);
  }
  const start = rest.search(/\S*$/);
  const prefix = rest.slice(start);
  const bound = bindPromptWords(command, parseCommandArgs(rest.slice(0, start)));
  const named = namedArgument(command, prefix);
  const argument = named?.name ?? command.arguments.find((a) => !(a.name in bound.values))?.name;
  if (argument === undefined || bound.extra.length > 0) return { prefix, values: [], hasMore: false };
  let found: { values: string[]; hasMore: boolean };
  try {
    found = await command.complete({ name: argument, value: named?.value ?? prefix }, bound.values);
  } catch (error) {
    throw new AppServerError(
      "invalidParams",
      `/${command.name}: MCP server "${command.server}" could not complete ${argument}: ${(error as Error).message}`,
    );
  }
  const word = (value: string) => (/\s/.test(value) ? `"${value.replaceAll('"', "")}"` : value);
  return {
    argument,
    prefix,
    values: found.values.map((value) => (named ? `${argument}=${word(value)}` : word(value))),
    hasMore: found.hasMore,
  };
}
