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

/** The argument values the command's words give, by the rule above. */
export function promptArgumentsOf(command: McpPromptCommand, args: string): Record<string, string> {
  const declared = command.arguments;
  const values: Record<string, string> = {};
  const positional: string[] = [];
  for (const word of parseCommandArgs(args)) {
    const eq = word.indexOf("=");
    const name = eq > 0 ? word.slice(0, eq) : undefined;
    if (name === undefined || !declared.some((a) => a.name === name)) positional.push(word);
    else if (name in values) throw new AppServerError("invalidParams", `/${command.name} got ${name}= twice`);
    else values[name] = word.slice(eq + 1);
  }
  for (const argument of declared) {
    if (positional.length === 0) break;
    if (!(argument.name in values)) values[argument.name] = positional.shift()!;
  }
  if (positional.length > 0) {
    throw new AppServerError(
      "invalidParams",
      `/${command.name} takes ${usage(command)}; too many arguments: ${positional.join(" ")}`,
    );
  }
  const missing = declared.filter((a) => a.required && !(a.name in values)).map((a) => a.name);
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
