/**
 * `/help` and what a typed `/word` is. Every command is listed with a one-line
 * description, grouped by where it comes from: the terminal's own, the server's,
 * extensions, prompt templates, skills, MCP prompts (`command/list` says which).
 */
import type { AppServerClient, Command } from "@knightcode/app-server-protocol";
import { type BuiltinCommand, describeCommand } from "./completion.ts";
import { KEY_HINTS } from "./header.ts";
import { style } from "./ui/style.ts";

/** Group titles, in the order `/help` shows them. */
const GROUPS: [NonNullable<Command["source"]> | "other", string][] = [
  ["builtin", "Session"],
  ["extension", "Extension commands"],
  ["template", "Prompt templates"],
  ["skill", "Skills"],
  ["mcp", "MCP prompts"],
  ["other", "Other"],
];

/** A typed line starting with `/`: a literal text (`//text` sends `/text`), or a command with its arguments. */
export function parseSlashLine(text: string): { literal: string } | { name: string; args: string } {
  if (text.startsWith("//")) return { literal: text.slice(1) };
  const space = text.search(/\s/);
  return {
    name: text.slice(1, space < 0 ? undefined : space),
    args: space < 0 ? "" : text.slice(space + 1).trim(),
  };
}

/**
 * What the help needs of the terminal (the interactive app has it): its client, the open
 * thread, the cwd and the conversation to write in. Named here, not as the app's type, so
 * the app can import this module without an import circle.
 */
export interface HelpHost {
  readonly client: AppServerClient;
  readonly cwd: string;
  readonly session: { readonly threadId: string | undefined };
  readonly view: { note(text: string): void };
}

/** The thread's commands from `command/list`; none when it cannot answer. */
export async function listedCommands(app: HelpHost): Promise<Command[]> {
  const threadId = app.session.threadId;
  return app.client
    .request("command/list", threadId === undefined ? { cwd: app.cwd } : { threadId })
    .then((r) => r.commands)
    .catch(() => []);
}

/** `/help`: the keys, then every command with its description. */
export async function showHelp(app: HelpHost, builtins: readonly BuiltinCommand[]): Promise<void> {
  const listed = await listedCommands(app);
  const own = new Set(builtins.map((b) => b.name));
  const rows = (commands: { name: string; description: string }[]) => {
    const width = Math.min(28, Math.max(...commands.map((c) => c.name.length + 1)));
    return commands.map(
      (c) => `  ${`/${c.name}`.padEnd(width + 1)} ${style.muted(firstLine(c.description))}`,
    );
  };
  const lines = [
    style.bold("Keys"),
    `  ${KEY_HINTS.map(([key, what]) => `${key} ${what}`).join(" · ")}`,
    "  Shift+Enter or Ctrl+J new line · Alt+↑ edit the last queued message · Ctrl+C clear, twice to exit · Ctrl+D exit",
    "  //text sends a message that starts with a slash · !cmd runs a shell command, !!cmd keeps its output from the model",
    "",
    style.bold("Terminal commands"),
    ...rows([...builtins]),
  ];
  for (const [source, title] of GROUPS) {
    const group = listed.filter((c) => !own.has(c.name) && (c.source ?? "other") === source);
    const described = group.map((c) => ({ name: c.name, description: describeCommand(c) }));
    if (group.length > 0) lines.push("", style.bold(title), ...rows(described));
  }
  app.view.note(lines.join("\n"));
}

function firstLine(text: string): string {
  return text.split("\n")[0]?.trim() ?? "";
}
