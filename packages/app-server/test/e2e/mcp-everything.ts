/**
 * Threads whose MCP servers are the real ones from npm, as the MCP end-to-end tests
 * start them: `server-everything` as `everything`, with others beside it.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { AppServerClient, McpServerConfig } from "@knightcode/app-server-protocol";
import { everythingServer, filesystemServer } from "@knightcode/testkit";
import { MOCK_MODEL } from "./harness.ts";

/** Starts a thread on the mock model with server-everything as `everything`, plus `extra`. */
export async function everythingThread(
  client: AppServerClient,
  cwd: string,
  extra: Record<string, McpServerConfig> = {},
) {
  const { thread, warnings } = await client.request("thread/start", {
    cwd,
    model: MOCK_MODEL,
    mcpServers: { everything: everythingServer(), ...extra },
  });
  return { threadId: thread.id, warnings };
}

/** server-filesystem serving a fresh `files` dir in `cwd` (a server without prompts or completions). */
export function filesInCwd(cwd: string): McpServerConfig {
  const root = join(cwd, "files");
  mkdirSync(root);
  return filesystemServer(root);
}
