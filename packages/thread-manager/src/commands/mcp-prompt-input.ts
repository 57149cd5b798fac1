/**
 * `/mcp__<server>__<prompt> args` as input: the words map to the prompt's declared
 * arguments, the server renders it (`prompts/get`), and the text of its messages, in
 * order and whatever their role, becomes the user message. A word `name=value` whose
 * name the prompt declares sets that argument; every other word fills the next argument
 * not yet set, in declared order (quotes group words, as for prompt templates).
 * Embedded text resources count as text; images, audio and binary or linked resources
 * are left out. A missing required argument, a word too many, a `name=` given twice, or
 * a server that cannot render the prompt fails `turn/start` with `invalidParams`, as a
 * bad `/name` does, before any turn starts.
 */
import { AppServerError } from "@knightcode/app-server-protocol";
import type { McpPromptCommand } from "@knightcode/mcp";
import { parseCommandArgs } from "./slash-command-parse.ts";

type PromptMessage = Awaited<ReturnType<McpPromptCommand["get"]>>["messages"][number];

/** How words bind to declared arguments: the values, words left over, and a name given twice. */
export interface BoundPromptWords {
  values: Record<string, string>;
  /** Positional words beyond the declared arguments. */
  extra: string[];
  repeated: string | undefined;
}

/** The declared argument a `name=value` word sets, if its name is declared. */
export function namedArgument(
  command: McpPromptCommand,
  word: string,
): { name: string; value: string } | undefined {
  const eq = word.indexOf("=");
  const name = eq > 0 ? word.slice(0, eq) : undefined;
  if (name === undefined || !command.arguments.some((a) => a.name === name)) return undefined;
  return { name, value: word.slice(eq + 1) };
}

/** Binds words to the command's arguments by the rule above, refusing nothing. */
export function bindPromptWords(command: McpPromptCommand, words: readonly string[]): BoundPromptWords {
  const values: Record<string, string> = {};
  const positional: string[] = [];
  let repeated: string | undefined;
  for (const word of words) {
    const named = namedArgument(command, word);
    if (named === undefined) positional.push(word);
    else if (named.name in values) repeated ??= named.name;
    else values[named.name] = named.value;
  }
  for (const argument of command.arguments) {
    if (positional.length === 0) break;
    if (!(argument.name in values)) values[argument.name] = positional.shift()!;
  }
  return { values, extra: positional, repeated };
}

/** The argument values the command's words give, by the rule above. */
export function promptArgumentsOf(command: McpPromptCommand, args: string): Record<string, string> {
  const { values, extra: positional, repeated } = bindPromptWords(command, parseCommandArgs(args));
  if (repeated !== undefined)
    throw new AppServerError("invalidParams", `/${command.name} got ${repeated}= twice`);
  if (positional.length > 0) {
    throw new AppServerError(
      "invalidParams",
      `/${command.name} takes ${usage(command)}; too many arguments: ${positional.join(" ")}`,
    );
  }
  const missing = command.arguments.filter((a) => a.required && !(a.name in values)).map((a) => a.name);
  if (missing.length > 0) {
    throw new AppServerError(
      "invalidParams",
      `/${command.name} needs ${missing.join(", ")} (it takes ${usage(command)})`,
    );
  }
  return values;
}

function usage(command: McpPromptCommand): string {
  if (command.arguments.length === 0) return "no arguments";
  return command.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" ");
}

/** The user message of an MCP prompt invoked with `args`. */
export async function expandMcpPrompt(command: McpPromptCommand, args: string): Promise<string> {
  const values = promptArgumentsOf(command, args);
  let result: Awaited<ReturnType<McpPromptCommand["get"]>>;
  try {
    result = await command.get(values);
  } catch (error) {
    throw new AppServerError(
      "invalidParams",
      `/${command.name}: MCP server "${command.server}" could not render prompt ${command.prompt}: ${(error as Error).message}`,
    );
  }
  return result.messages
    .map(textOf)
    .filter((text) => text !== undefined)
    .join("\n\n");
}

function textOf(message: PromptMessage): string | undefined {
  const content = message.content;
  if (content.type === "text") return content.text;
  if (content.type === "resource" && "text" in content.resource) return content.resource.text;
  return undefined;
}
