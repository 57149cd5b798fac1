/**
 * Editor completion over the protocol: `/` at the start of a message completes the
 * built-in commands plus `command/list` (extension commands, prompt templates,
 * `skill:<name>`, MCP prompts with their arguments), and the arguments of an MCP prompt after
 * `/mcp__<server>__<prompt> ` through `command/complete` (the server's own suggestions); `@` completes files through `file/search` (fuzzy, `fd` on the server),
 * and `@<server>:` the resources a ready MCP server of the thread lists (`mcpServer/list`).
 */
import type { AppServerClient, Command } from "@knightcode/app-server-protocol";
import type { Completer, Completion } from "./ui/prompt-editor.ts";

/** A command the UI itself runs. */
export interface BuiltinCommand {
  name: string;
  description: string;
}

const FILE_LIMIT = 20;

/** A listed command's description, led by its declared arguments when it has any (an MCP prompt's: `<city> [state]`). */
export function describeCommand(command: Command): string {
  const hint = (command.arguments ?? []).map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" ");
  if (hint === "") return command.description;
  return command.description === "" ? hint : `${hint} · ${command.description}`;
}

/** The completer for one thread; `threadId` is read at each completion (it changes on /new, /resume). */
export function createCompleter(
  client: AppServerClient,
  cwd: string,
  builtins: readonly BuiltinCommand[],
  threadId: () => string | undefined,
): Completer {
  return {
    async complete(before, atMessageStart, signal) {
      const slash = /^\/(\S*)$/.exec(before);
      if (slash !== null && atMessageStart) {
        const typed = slash[1] ?? "";
        const id = threadId();
        const listed = await client
          .request("command/list", id === undefined ? { cwd } : { threadId: id })
          .then((r) => r.commands)
          .catch(() => []);
        if (signal.aborted) return undefined;
        const builtinNames = new Set(builtins.map((b) => b.name));
        const all: Completion[] = [
          ...builtins.map((b) => ({ value: `/${b.name} `, label: `/${b.name}`, description: b.description })),
          ...listed
            .filter((c) => !builtinNames.has(c.name))
            .map((c) => ({ value: `/${c.name} `, label: `/${c.name}`, description: describeCommand(c) })),
        ];
        const items = all.filter((c) => c.label.slice(1).toLowerCase().startsWith(typed.toLowerCase()));
        return { items, prefix: before };
      }
      const id = threadId();
      if (atMessageStart && id !== undefined && /^\/mcp__\S+\s/.test(before)) {
        const found = await client
          .request("command/complete", { threadId: id, text: before })
          .catch(() => undefined);
        if (signal.aborted || found === undefined || found.values.length === 0) return undefined;
        const items = found.values.map((value) => ({
          value: `${value} `,
          label: value,
          ...(found.argument !== undefined ? { description: found.argument } : {}),
        }));
        return { items, prefix: found.prefix };
      }
      const at = /(?:^|\s)(@(\S*))$/.exec(before);
      if (at !== null) {
        const prefix = at[1]!;
        const query = at[2] ?? "";
        if (query === "") return undefined;
        const resources = await resourceCompletions(client, threadId(), query);
        if (signal.aborted) return undefined;
        if (resources !== undefined) return { items: resources, prefix };
        const found = await client
          .request("file/search", { cwd, query, limit: FILE_LIMIT, searchId: "composer" })
          .catch(() => ({ files: [] }));
        if (signal.aborted) return undefined;
        return { items: found.files.map((f) => ({ value: `@${f.path} `, label: f.path })), prefix };
      }
      return undefined;
    },
  };
}

/** `@server:uri` completions when `query` starts with a ready server's name and a colon; undefined otherwise. */
async function resourceCompletions(
  client: AppServerClient,
  threadId: string | undefined,
  query: string,
): Promise<Completion[] | undefined> {
  const named = /^([A-Za-z0-9_.-]+):(.*)$/.exec(query);
  if (named === null || threadId === undefined) return undefined;
  const servers = await client
    .request("mcpServer/list", { threadId })
    .then((r) => r.servers)
    .catch(() => []);
  const server = servers.find((s) => s.name === named[1] && s.state === "ready");
  if (server?.resources === undefined) return undefined;
  const typed = named[2] ?? "";
  return server.resources
    .filter((r) => r.uri.startsWith(typed) || r.name.toLowerCase().startsWith(typed.toLowerCase()))
    .slice(0, FILE_LIMIT)
    .map((r) => ({
      value: `@${server.name}:${r.uri} `,
      label: `${server.name}:${r.name}`,
      description: r.mimeType !== undefined ? `${r.uri} · ${r.mimeType}` : r.uri,
    }));
}
