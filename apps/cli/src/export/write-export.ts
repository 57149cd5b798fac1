/**
 * Reads a session's current branch over the protocol (every `thread/read` page, every
 * reference resolved) and writes it as one HTML file. `/export` and `knightcode export`
 * both end here.
 */
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { AppServerClient, ThreadItem, TokenUsage, Turn } from "@knightcode/app-server-protocol";
import { type ExportedSession, sessionHtml } from "./session-html.ts";

/** What to export and where. */
export interface ExportRequest {
  threadId: string;
  /** The file to write, relative to `cwd`; default `knightcode-<first 8 of the ID>.html`. */
  output?: string;
  cwd: string;
  usage?: TokenUsage;
  system?: ExportedSession["system"];
}

/** The default file name of an export. */
export function defaultExportName(threadId: string): string {
  return `knightcode-${threadId.replaceAll("-", "").slice(-12)}.html`;
}

/** Writes the export; resolves with the absolute path written. */
export async function writeSessionExport(client: AppServerClient, request: ExportRequest): Promise<string> {
  const first = await client.request("thread/read", { threadId: request.threadId });
  const pages = [first.turns];
  for (let cursor = first.nextCursor; cursor !== undefined; ) {
    const page = await client.request("thread/read", { threadId: request.threadId, cursor });
    pages.unshift(page.turns);
    cursor = page.nextCursor;
  }
  const turns = await Promise.all(pages.flat().map((turn) => client.resolveTurn(turn)));
  const html = sessionHtml({
    thread: first.thread,
    turns: turns.map((turn: Turn) => ({ ...turn, items: (turn.items ?? []) as ThreadItem[] })),
    ...(request.usage === undefined ? {} : { usage: request.usage }),
    ...(request.system === undefined ? {} : { system: request.system }),
    exportedAt: Date.now(),
  });
  const path = resolve(request.cwd, request.output ?? defaultExportName(request.threadId));
  await writeFile(path, html);
  return path;
}
