/**
 * Input that names a prompt template (`/<template> args`) or a skill (`/skill:<name>
 * args`) becomes the user message: the template with its arguments substituted, or the
 * skill's instructions followed by the arguments. Anything else stays as typed.
 */
import { type PromptTemplateResource, parseFrontmatter, type SkillResource } from "@knightcode/config";
import type { DiscoveredCommands } from "./commands.ts";
import { parseSlashCommand } from "./slash-command-parse.ts";

/** Splits command arguments on whitespace; single or double quotes group words. */
export function parseCommandArgs(text: string): string[] {
  const args: string[] = [];
  let current = "";
  let quote: '"' | "'" | undefined;
  let inWord = false;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) args.push(current);
      current = "";
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (inWord) args.push(current);
  return args;
}

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
 * Expands a template or skill invocation; other text (including an unknown `/x`) is
 * returned unchanged and reaches the model as typed. A skill file that cannot be read
 * leaves the text unchanged too, with the error passed to `onError`.
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
  return template ? expandTemplate(template, command.args) : text;
}
