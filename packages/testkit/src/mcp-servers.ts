/**
 * Stdio configs for the real third-party MCP servers installed from npm (run with the
 * Bun running the tests), and for the misbehaving servers failure tests need: a missing
 * command, one that never answers `initialize`, one that writes junk on stdout first,
 * one that exits in the middle of a call.
 */
import { join } from "node:path";

/** A stdio server config, in the shape of the `mcpServers` setting. */
export interface TestStdioServer {
  command: string;
  args: string[];
  env?: Record<string, string>;
  startTimeoutMs?: number;
  tools?: string[];
  enabled?: boolean;
}

/** The `mcp-server-everything` entry point. */
export const EVERYTHING_ENTRY = Bun.resolveSync(
  "@modelcontextprotocol/server-everything/dist/index.js",
  import.meta.dir,
);
/** The `mcp-server-filesystem` entry point. */
export const FILESYSTEM_ENTRY = Bun.resolveSync(
  "@modelcontextprotocol/server-filesystem/dist/index.js",
  import.meta.dir,
);

/** `@modelcontextprotocol/server-everything` over stdio. */
export function everythingServer(extra: Partial<TestStdioServer> = {}): TestStdioServer {
  return { command: process.execPath, args: [EVERYTHING_ENTRY, "stdio"], ...extra };
}

/** `@modelcontextprotocol/server-filesystem` over stdio, confined to `root`. */
export function filesystemServer(root: string): TestStdioServer {
  return { command: process.execPath, args: [FILESYSTEM_ENTRY, root] };
}

/** A command no PATH has. */
export function missingCommandServer(): TestStdioServer {
  return { command: "knightcode-test-no-such-mcp-server", args: [] };
}

/** Reads stdin and never answers, so `initialize` hangs until the start timeout. */
export function hangingServer(startTimeoutMs: number): TestStdioServer {
  return {
    command: process.execPath,
    args: ["-e", "process.stdin.resume(); setInterval(() => {}, 60_000);"],
    startTimeoutMs,
  };
}

/** Writes two lines that are not JSON-RPC on stdout, then becomes server-everything. */
export function junkThenEverythingServer(): TestStdioServer {
  return {
    command: "/bin/sh",
    args: [
      "-c",
      'echo "hello from a chatty wrapper"; echo "{not json"; exec "$0" "$@"',
      process.execPath,
      EVERYTHING_ENTRY,
      "stdio",
    ],
  };
}

/**
 * server-everything behind a wrapper that kills it when a `tools/call` for `tool` reaches
 * it: the server exits during that call, as a crashing server would.
 */
export function exitsDuringCallServer(tool: string): TestStdioServer {
  return {
    command: process.execPath,
    args: [join(import.meta.dir, "mcp-exit-on-call.ts"), tool, EVERYTHING_ENTRY],
  };
}
