/**
 * Where an OAuth-protected HTTP server's credentials live: one JSON file per server URL
 * under the agent dir's `mcp-oauth/` (a folder of mode 0700), each written whole to a
 * temp file of mode 0600 and renamed over the old one, so no reader ever sees a token
 * in a file others can read. The file holds the registered client and the tokens;
 * nothing of it goes into settings or logs.
 */
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What one server's file holds. */
export interface StoredOAuth {
  serverUrl: string;
  clientInformation?: Record<string, unknown>;
  tokens?: Record<string, unknown>;
}

/** One server's credentials file. */
export class OAuthStore {
  /** The file's path (named by a hash of the URL, so the URL's own characters never make a path). */
  readonly path: string;

  constructor(
    private readonly dir: string,
    private readonly serverUrl: string,
  ) {
    const name = createHash("sha256").update(serverUrl).digest("hex").slice(0, 24);
    this.path = join(dir, `${name}.json`);
  }

  /** The stored credentials; empty when there is no file or it is unreadable. */
  read(): StoredOAuth {
    try {
      const stored = JSON.parse(readFileSync(this.path, "utf8")) as StoredOAuth;
      if (stored.serverUrl === this.serverUrl) return stored;
    } catch {
      // no file yet, or one that cannot be parsed: the flow starts over and rewrites it
    }
    return { serverUrl: this.serverUrl };
  }

  /** Replaces the stored credentials with `change` applied. */
  update(change: (stored: StoredOAuth) => StoredOAuth): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    const temp = `${this.path}.${randomBytes(6).toString("hex")}.tmp`;
    writeFileSync(temp, `${JSON.stringify(change(this.read()))}\n`, { mode: 0o600 });
    renameSync(temp, this.path);
  }

  /** Forgets everything stored for the server. */
  clear(): void {
    rmSync(this.path, { force: true });
  }
}
