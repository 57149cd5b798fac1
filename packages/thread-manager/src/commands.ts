/**
 * `command/list`: extension commands, prompt templates, and skills as `skill:<name>`,
 * without the leading `/`. For a cwd the list is what a new thread there would offer,
 * computed from settings and resource discovery only: nothing starts, nothing is written.
 */
import type { Command } from "@knightcode/app-server-protocol";
import { discoverResources, loadSettings } from "@knightcode/config";

/** The commands of a project plus the given extension commands, deduplicated by name. */
export async function listCommands(
  agentDir: string,
  cwd: string,
  extensionCommands: readonly Command[],
): Promise<Command[]> {
  const settings = await loadSettings({ agentDir, cwd });
  const resources = await discoverResources({
    agentDir,
    cwd,
    trusted: settings.trusted,
    globalSettings: settings.globalSettings,
    projectSettings: settings.projectSettings,
  });
  const out: Command[] = [];
  const seen = new Set<string>();
  const add = (command: Command) => {
    if (seen.has(command.name)) return;
    seen.add(command.name);
    out.push(command);
  };
  for (const command of extensionCommands) add({ name: command.name, description: command.description });
  for (const prompt of resources.prompts) add({ name: prompt.name, description: prompt.description });
  for (const skill of resources.skills) add({ name: `skill:${skill.name}`, description: skill.description });
  return out;
}
