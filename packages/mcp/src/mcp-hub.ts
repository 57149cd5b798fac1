/**
 * The server processes of one manager. Threads with the same server name, config and
 * cwd share one connection; it stops when the last of them releases it, and every one
 * stops at shutdown. A failed or stopped connection is replaced on the next acquire,
 * so reloading a thread retries a server that died.
 */
import { resolve } from "node:path";
import type { McpServerSettings } from "@knightcode/config";
import type { AuthorizationOpener } from "./authorization-opener.ts";
import { openInBrowser } from "./open-url.ts";
import { McpServerConnection } from "./server-connection.ts";

/** How the hub starts servers. */
export interface McpHubOptions {
  /** KnightCode's environment; stdio servers inherit only PATH, HOME and LANG from it. */
  env?: Record<string, string | undefined>;
  /** Receives labelled server stderr lines and lifecycle notes. Default: our stderr. */
  log?: (line: string) => void;
  clientVersion?: string;
  /**
   * Where HTTP servers' OAuth credentials are kept (the agent dir's `mcp-oauth/`); absent,
   * a server that asks for OAuth fails to start as before.
   */
  oauthDir?: string;
  /** Sends the user to an authorization URL. Default: the system's opener, and the URL on stderr. */
  openAuthorizationUrl?: AuthorizationOpener;
}

/** A thread's hold on a shared connection. */
export interface ConnectionLease {
  connection: McpServerConnection;
  /** Gives the hold back; the last release stops the server. Idempotent. */
  release(): Promise<void>;
}

interface Entry {
  connection: McpServerConnection;
  holders: number;
}

/** What makes two servers the same process: transport settings and cwd, not the tool filter. */
export function connectionKey(name: string, config: McpServerSettings, cwd: string): string {
  if ("url" in config) return JSON.stringify(["http", name, config.url, sorted(config.headers)]);
  const serverCwd = config.cwd !== undefined ? resolve(cwd, config.cwd) : resolve(cwd);
  return JSON.stringify(["stdio", name, config.command, config.args ?? [], sorted(config.env), serverCwd]);
}

function sorted(map: Record<string, string> | undefined): [string, string][] {
  return Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Shared MCP server connections, counted by holder. */
export class McpHub {
  readonly #entries = new Map<string, Entry>();
  #closed = false;

  constructor(private readonly options: McpHubOptions = {}) {}

  /** Takes a hold on the server for this name, config and cwd, starting it when needed. */
  acquire(name: string, config: McpServerSettings, cwd: string): ConnectionLease {
    const key = connectionKey(name, config, cwd);
    let entry = this.#entries.get(key);
    const usable = entry && (entry.connection.state === "starting" || entry.connection.state === "ready");
    if (!entry || !usable) {
      entry = { connection: this.#connect(name, config, cwd), holders: 0 };
      if (!this.#closed) this.#entries.set(key, entry);
    }
    const held = entry;
    held.holders++;
    let released = false;
    return {
      connection: held.connection,
      release: async () => {
        if (released) return;
        released = true;
        held.holders--;
        if (held.holders > 0) return;
        if (this.#entries.get(key) === held) this.#entries.delete(key);
        await held.connection.close();
      },
    };
  }

  /** The running connection for this name, config and cwd, if a thread holds one. */
  find(name: string, config: McpServerSettings, cwd: string): McpServerConnection | undefined {
    return this.#entries.get(connectionKey(name, config, cwd))?.connection;
  }

  /** How many server connections are held now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Stops every server; acquires afterwards get connections that are already stopped. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => entry.connection.close()));
  }

  #defaultOpener(): AuthorizationOpener {
    const log = this.options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    return (url, server) => {
      log(`[mcp:${server}] sign in to continue: ${url.toString()}`);
      openInBrowser(url.toString(), log);
    };
  }

  #connect(name: string, config: McpServerSettings, cwd: string): McpServerConnection {
    const connection = new McpServerConnection({
      name,
      config,
      cwd: resolve(cwd),
      env: this.options.env ?? process.env,
      log: this.options.log ?? ((line) => process.stderr.write(`${line}\n`)),
      clientVersion: this.options.clientVersion ?? "0.1.0",
      ...(this.options.oauthDir !== undefined
        ? {
            oauth: {
              dir: this.options.oauthDir,
              open: this.options.openAuthorizationUrl ?? this.#defaultOpener(),
            },
          }
        : {}),
    });
    if (this.#closed) void connection.close();
    else void connection.start();
    return connection;
  }
}
