/**
 * MCP prompts as slash commands: prompt `p` of server `s` is the command `mcp__s__p`,
 * named with the same sanitizing (and hash suffix on clashes) as the server's tools.
 */
import type { GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConnection } from "./server-connection.ts";
import { uniqueToolNames } from "./tool-names.ts";

/** One argument a prompt declares. */
export interface McpPromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

/** A prompt offered as a command. */
export interface McpPromptCommand {
  /** The command name, without `/`: `mcp__<server>__<prompt>`. */
  name: string;
  description: string;
  server: string;
  /** The prompt's name on its server. */
  prompt: string;
  /** Declared arguments, in the server's order. */
  arguments: McpPromptArgument[];
  /** Renders the prompt with the given argument values (`prompts/get`). */
  get(args: Record<string, string>): Promise<GetPromptResult>;
  /** Values the server suggests for one argument, given those set so far (`completion/complete`). */
  complete(
    argument: { name: string; value: string },
    context: Record<string, string>,
  ): Promise<{ values: string[]; hasMore: boolean }>;
}

/** The commands of one server's prompts. */
export function promptCommandsOf(server: string, connection: McpServerConnection): McpPromptCommand[] {
  const prompts = connection.prompts;
  const names = uniqueToolNames(
    server,
    prompts.map((prompt) => prompt.name),
  );
  return prompts.map((prompt) => ({
    name: names.get(prompt.name)!,
    description: describe(server, prompt),
    server,
    prompt: prompt.name,
    arguments: (prompt.arguments ?? []).map((argument) => ({
      name: argument.name,
      ...(argument.description !== undefined ? { description: argument.description } : {}),
      required: argument.required === true,
    })),
    get: (args) => connection.getPrompt(prompt.name, args),
    complete: (argument, context) => connection.completePromptArgument(prompt.name, argument, context),
  }));
}

function describe(server: string, prompt: Prompt): string {
  return prompt.description ?? prompt.title ?? `Prompt ${prompt.name} of MCP server ${server}`;
}
