/** `/session` and `/usage`: what the session is and what it has cost, from the protocol. */
import { existsSync } from "node:fs";
import { basename, dirname } from "node:path";
import { compactCount } from "./footer.ts";
import { homeRelative } from "./header.ts";
import type { InteractiveApp } from "./interactive-app.ts";
import { style } from "./ui/style.ts";

/** `/session`: file, ID, name, message counts and usage. */
export async function showSession(app: InteractiveApp, threadId: string): Promise<void> {
  const page = await app.client.request("thread/read", { threadId });
  let user = 0;
  let agent = 0;
  let tools = 0;
  for (const ref of page.turns) {
    const turn = await app.client.resolveTurn(ref);
    for (const item of turn.items ?? []) {
      if (item.type === "userMessage") user++;
      else if (item.type === "agentMessage") agent++;
      else if (item.type === "toolCall") tools++;
    }
  }
  const t = page.thread;
  const lines = [
    style.bold("Session"),
    `  ID       ${t.id}`,
    ...fileLines(t.path),
    `  Name     ${t.name ?? t.title ?? "(untitled)"}`,
    `  Turns    ${page.turns.length}${page.nextCursor === undefined ? "" : "+ (older pages not counted)"}`,
    `  Messages ${user} user, ${agent} assistant, ${tools} tool calls`,
    ...usageLines(app),
  ];
  app.view.note(lines.join("\n"));
}

function usageLines(app: InteractiveApp): string[] {
  const usage = app.footer.usage;
  if (usage === undefined) return ["  Usage    nothing yet"];
  const context =
    usage.contextTokens === undefined || usage.contextWindow === 0
      ? "unknown"
      : `${compactCount(usage.contextTokens)} of ${compactCount(usage.contextWindow)} (${((usage.contextTokens / usage.contextWindow) * 100).toFixed(1)}%)`;
  return [
    `  Tokens   ${usage.input.toLocaleString("en-US")} in, ${usage.output.toLocaleString("en-US")} out, ${usage.cacheRead.toLocaleString("en-US")} cache read, ${usage.cacheWrite.toLocaleString("en-US")} cache write`,
    `  Cost     $${usage.cost.toFixed(4)}`,
    `  Context  ${context}`,
  ];
}

/** `/usage`: the cumulative usage of this session. */
export function showUsage(app: InteractiveApp): void {
  app.view.note([style.bold("Usage"), ...usageLines(app)].join("\n"));
}

/**
 * The transcript as a folder line and a file-name line: a whole path is wider than most
 * terminals and would wrap inside the name; the name alone fits.
 */
function fileLines(path: string | undefined): string[] {
  if (path === undefined) return ["  File     (none)"];
  const written = existsSync(path) ? "" : style.muted("  (not written yet: the first message writes it)");
  return [`  Folder   ${homeRelative(dirname(path))}/`, `  File     ${basename(path)}${written}`];
}
