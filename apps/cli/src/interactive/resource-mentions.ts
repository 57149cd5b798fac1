/**
 * `@<server>:<uri>` in a message names a resource of one of the thread's MCP servers.
 * On submit each mention of a ready server becomes a `turn/start` `resources` entry, so
 * the server reads it and the model gets its contents; the text keeps the mention. A
 * mention of a name that is no server of the thread stays plain text (`@notes:todo`).
 */
import type { McpResourceRef, McpServerStatus } from "@knightcode/app-server-protocol";

/** `@name:uri`, at the start or after whitespace; the URI runs to the next whitespace. */
const MENTION = /(?:^|\s)@([A-Za-z0-9_.-]+):(\S+)/g;
/** Sentence punctuation after a mention is not part of its URI. */
const TRAILING_PUNCTUATION = /[.,;:!?)\]}'"]+$/;

/** Whether the text could hold a mention at all (the server list is asked for only then). */
export function mayMentionResources(text: string): boolean {
  return /(?:^|\s)@[A-Za-z0-9_.-]+:\S/.test(text);
}

/** The resources the text mentions, in order and each once, among the ready servers given. */
export function resourceMentions(text: string, servers: readonly McpServerStatus[]): McpResourceRef[] {
  const ready = new Set(servers.filter((s) => s.state === "ready").map((s) => s.name));
  const refs: McpResourceRef[] = [];
  const seen = new Set<string>();
  for (const match of text.matchAll(MENTION)) {
    const server = match[1]!;
    const uri = match[2]!.replace(TRAILING_PUNCTUATION, "");
    if (!ready.has(server) || uri === "") continue;
    const key = JSON.stringify([server, uri]);
    if (seen.has(key)) continue;
    seen.add(key);
    refs.push({ server, uri });
  }
  return refs.slice(0, 16);
}

/** The resources a message mentions, asking the thread's server list only when it could hold one. */
export async function mentionedResources(
  listServers: () => Promise<readonly McpServerStatus[]>,
  text: string,
): Promise<McpResourceRef[]> {
  if (!mayMentionResources(text)) return [];
  return resourceMentions(text, await listServers());
}
