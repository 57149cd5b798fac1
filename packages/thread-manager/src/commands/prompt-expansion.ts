/**
 * Input that names a prompt template (`/<template> args`), a skill (`/skill:<name>
 * args`) or an MCP prompt (`/mcp__<server>__<prompt> args`) becomes the user message:
 * the template with its arguments substituted, the skill's instructions followed by the
 * arguments, or the prompt as its server renders it. Anything else stays as typed.
 */
import { type PromptTemplateResource, parseFrontmatter, type SkillResource } from "@knightcode/config";
import type { DiscoveredCommands } from "./commands.ts";
import { expandMcpPrompt } from "./mcp-prompt-input.ts";
import { parseCommandArgs, parseSlashCommand } from "./slash-command-parse.ts";

/**
 * Substitutes `$1`…`$N` (positional), `$@` and `$ARGUMENTS` (all, space-joined),
 * `${@:N}` (from the Nth on) and `${@:N:L}` (L of them) in one pass, so text coming
 * from an argument is never substituted again.
 */
export function substituteArgs(template: string, args: readonly string[]): string {
  return template.replace(
    /\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@|\$(\d+)/g,
    (match, from: string | undefined, length: string | undefined, position: string | undefined) => {
      if (position !== undefined) return args[Number(position) - 1] ?? "";
      if (from !== undefined) {
        const start = Math.max(0, Number(from) - 1);
        const end = length !== undefined ? start + Number(length) : undefined;
        return args.slice(start, end).join(" ");
      }
      return match === "$ARGUMENTS" || match === "$@" ? args.join(" ") : match;
    },
  );
}

/** The user message of a prompt template invoked with `args`. */
export function expandTemplate(template: PromptTemplateResource, args: string): string {
  return substituteArgs(template.content, parseCommandArgs(args));
}

/** The user message of `/skill:<name> args`: the skill's instructions, then the arguments. */
export async function expandSkill(skill: SkillResource, args: string): Promise<string> {
  const { body } = parseFrontmatter(await Bun.file(skill.path).text());
  const block = [
    `<skill name="${skill.name}" location="${skill.path}">`,
    `References are relative to ${skill.baseDir}.`,
    "",
    body.trim(),
    "</skill>",
  ].join("\n");
  return args.trim() === "" ? block : `${block}\n\n${args.trim()}`;
}

/**
 * Expands a template, skill or MCP prompt invocation; other text (including an unknown
 * `/x`) is returned unchanged and reaches the model as typed. A skill file that cannot be
 * read leaves the text unchanged too, with the error passed to `onError`; an MCP prompt
 * with bad arguments throws `invalidParams` (see `mcp-prompt-input.ts`).
 */
export async function expandInputText(
  text: string,
  discover: () => Promise<DiscoveredCommands>,
  onError: (message: string) => void,
): Promise<string> {
  const command = parseSlashCommand(text);
  if (!command) return text;
  const found = await discover();
  if (command.name.startsWith("skill:")) {
    const skill = found.skills.find((s) => s.name === command.name.slice("skill:".length));
    if (!skill) return text;
    try {
      return await expandSkill(skill, command.args);
    } catch (error) {
      onError(`Skill ${skill.name} could not be read: ${(error as Error).message}`);
      return text;
    }
  }
  const template = found.prompts.find((p) => p.name === command.name);
  if (template) return expandTemplate(template, command.args);
  const mcpPrompt = found.mcpPrompts?.find((p) => p.name === command.name);
  return mcpPrompt ? expandMcpPrompt(mcpPrompt, command.args) : text;
}
